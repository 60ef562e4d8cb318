#!/usr/bin/env python3
"""Validates a JSON document against a JSON schema: validate_json.py DOC SCHEMA."""
import json
import sys

import jsonschema

doc = json.load(open(sys.argv[1], encoding="utf-8"))
schema = json.load(open(sys.argv[2], encoding="utf-8"))
jsonschema.validators.validator_for(schema)(schema).validate(doc)
print("valid")
