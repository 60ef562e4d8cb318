#include "rootline/error.h"
// Error is header-only; this file anchors the support library's first object.
