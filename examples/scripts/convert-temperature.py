#!/usr/bin/env python3
# DESCRIPTION "Converts a temperature between Celsius, Fahrenheit and Kelvin."
# PARAM value AS number LIKE 21.5 DESCRIPTION "The temperature to convert."
# PARAM from_unit AS string ENUM ["C","F","K"] DESCRIPTION "The unit of value."
# PARAM to_unit AS string ENUM ["C","F","K"] DESCRIPTION "The unit to convert to."
# HINTS readOnly, idempotent, openWorld: false
import json
import sys

args = json.load(sys.stdin)
to_kelvin = {"C": lambda v: v + 273.15, "F": lambda v: (v - 32) * 5 / 9 + 273.15, "K": lambda v: v}
from_kelvin = {"C": lambda k: k - 273.15, "F": lambda k: (k - 273.15) * 9 / 5 + 32, "K": lambda k: k}
kelvin = to_kelvin[args["from_unit"]](args["value"])
print(json.dumps({"value": round(from_kelvin[args["to_unit"]](kelvin), 2), "unit": args["to_unit"]}))
