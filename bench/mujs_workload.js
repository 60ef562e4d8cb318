var primes = [];
for (var n = 2; primes.length < 60; n++) {
  var ok = true;
  for (var i = 0; i < primes.length && primes[i] * primes[i] <= n; i++)
    if (n % primes[i] == 0) { ok = false; break; }
  if (ok) primes.push(n);
}
var s = "";
for (var k = 0; k < 40; k++) s += String.fromCharCode(97 + k % 26);
var words = s.match(/[a-m]+/g);
var o = {};
for (var k = 0; k < 50; k++) o["k" + k] = k * k;
var sum = 0;
for (var key in o) sum += o[key];
print(primes.length, primes[primes.length - 1], words.length, sum);
print(JSON.stringify([1, "two", {three: 3}]));
