#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Compares the outcome of every rdma-core pyverbs test (run_tests.py -v output) with pyverbs.expected.

usage: pyverbs_check.py EXPECTED LINK=LOG [LINK=LOG ...]            check; print a per-module table
       pyverbs_check.py --write EXPECTED LINK=LOG [LINK=LOG ...]    rewrite EXPECTED from the logs

EXPECTED holds one line per (link, test): "LINK OUTCOME TEST[ | skip reason]", OUTCOME one of ok, fail, error,
skip. A skip's reason is part of the outcome: a test that now skips for another reason behaves differently.
Lines starting with '#' are comments and are kept by --write only if they precede the first test line.
"""
import collections
import re
import sys

# unittest's verbose line: "name (module.Class.name) ... result"; a docstring's first line may sit between the
# name and the " ... ", what the test prints between the " ... " and a result on the next line, and a skip's
# reason follows "skipped".
RESULT = re.compile(r"^(\w+) \((tests\.[\w.]+)\)(?:\n[^\n]*?)? \.\.\. (?:[^\n]*\n)?"
                    r"(ok|FAIL|ERROR|skipped '(.*)'|skipped \"(.*)\"|expected failure|unexpected success)$",
                    re.MULTILINE)
OUTCOME = {"ok": "ok", "FAIL": "fail", "ERROR": "error", "expected failure": "xfail",
           "unexpected success": "xpass"}


def parse_log(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    results = {}
    for m in RESULT.finditer(text):
        word = m.group(3)
        if word.startswith("skipped"):
            reason = m.group(4) if m.group(4) is not None else m.group(5)
            results[m.group(2)] = "skip | " + reason
        else:
            results[m.group(2)] = OUTCOME[word]
    # a test that errors in setUp/tearDown is reported again at the end ("ERROR: name (id)"); an error in a
    # module import has no "... " line at all and shows as a missing module below
    return results


def parse_expected(path):
    header, expected = [], {}
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            if not expected:
                header.append(line)
            continue
        link, rest = line.split(" ", 1)
        outcome, test = rest.split(" ", 1)
        reason = ""
        if " | " in test:
            test, reason = test.split(" | ", 1)
            outcome = outcome + " | " + reason
        expected[(link, test)] = outcome
    return header, expected


def table(runs):
    print("%-24s %s" % ("module", " ".join("%-24s" % link for link in runs)))
    modules = sorted({t.split(".")[1] for r in runs.values() for t in r})
    totals = {link: collections.Counter() for link in runs}
    for mod in modules:
        cells = []
        for link, res in runs.items():
            c = collections.Counter(v.split(" ")[0] for t, v in res.items() if t.split(".")[1] == mod)
            totals[link].update(c)
            cells.append("%-24s" % ("ok %d fail %d err %d skip %d" % (c["ok"], c["fail"], c["error"], c["skip"])))
        print("%-24s %s" % (mod, " ".join(cells)))
    print("%-24s %s" % ("TOTAL", " ".join("%-24s" % ("ok %d fail %d err %d skip %d" % (
        c["ok"], c["fail"], c["error"], c["skip"])) for c in totals.values())))


def main(argv):
    write = argv[:1] == ["--write"]
    if write:
        argv = argv[1:]
    if len(argv) < 2:
        sys.exit(__doc__)
    expected_path = argv[0]
    runs = {}
    for arg in argv[1:]:
        link, log = arg.split("=", 1)
        runs[link] = parse_log(log)
        if not runs[link]:
            sys.exit("pyverbs_check: no test results in %s (did the suite start?)" % log)
    table(runs)
    if write:
        header = parse_expected(expected_path)[0] if open(expected_path, "a+").tell() else []
        with open(expected_path, "w", encoding="utf-8") as out:
            for line in header:
                out.write(line + "\n")
            for link, res in runs.items():
                for test in sorted(res):
                    outcome = res[test]
                    if outcome.startswith("skip | "):
                        out.write("%s skip %s | %s\n" % (link, test, outcome[7:]))
                    else:
                        out.write("%s %s %s\n" % (link, outcome, test))
        print("pyverbs_check: wrote %s" % expected_path)
        return 0
    _, expected = parse_expected(expected_path)
    diffs = []
    for link, res in runs.items():
        keys = {t for (l, t) in expected if l == link} | set(res)
        for test in sorted(keys):
            want = expected.get((link, test), "(not expected)")
            got = res.get(test, "(did not run)")
            if want != got:
                diffs.append("%s %s: expected %s, got %s" % (link, test, want, got))
    for d in diffs:
        print("DIFF " + d)
    print("pyverbs_check: %d tests on %s, %d differ from %s" % (
        sum(len(r) for r in runs.values()), "+".join(runs), len(diffs), expected_path))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
