#!/usr/bin/python3
"""mirror-compare.py KERNEL4.json KERNEL6.json MIRROR.jsonl: exit 0 if the
mirror holds exactly the kernel's routes (table, type, dst, metric, next
hops as (gateway, dev, weight)), else print the differences and exit 1."""
import json
import sys

TABLES = {"main": 254, "local": 255, "default": 253}


def kernel_routes(path, family):
    out = []
    for r in json.load(open(path)):
        dst = r["dst"]
        if dst == "default":
            dst = "0.0.0.0/0" if family == 4 else "::/0"
        elif "/" not in dst:
            dst += "/32" if family == 4 else "/128"
        table = r.get("table", "main")
        table = TABLES.get(table, None) or int(table)
        if "nexthops" in r:
            nhs = [(n.get("gateway", ""), n.get("dev", ""), n.get("weight", 1))
                   for n in r["nexthops"]]
        elif "dev" in r or "gateway" in r:
            nhs = [(r.get("gateway", ""), r.get("dev", ""), 1)]
        else:
            nhs = []
        out.append((table, family, r.get("type", "unicast"), dst,
                    r.get("metric", 0), tuple(sorted(nhs))))
    return out


def mirror_routes(path):
    out = []
    for line in open(path):
        r = json.loads(line)
        nhs = [(n["gw"], n["dev"], n["weight"]) for n in r["nexthops"]]
        out.append((r["table"], r["family"], r["type"], r["dst"], r["metric"],
                    tuple(sorted(nhs))))
    return out


k = sorted(kernel_routes(sys.argv[1], 4) + kernel_routes(sys.argv[2], 6))
m = sorted(mirror_routes(sys.argv[3]))
ks, ms = set(k), set(m)
print("kernel %d routes, mirror %d routes" % (len(k), len(m)))
if k == m:
    sys.exit(0)
for r in sorted(ks - ms)[:10]:
    print("only in kernel:", r)
for r in sorted(ms - ks)[:10]:
    print("only in mirror:", r)
sys.exit(1)
