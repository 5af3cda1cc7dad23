# make mutants: one line per package from gremlins' -o results (jq -f).
def n(x): [.files[].mutations[] | select(.status == x)] | length;
"\($p): mutants \([.files[].mutations[]] | length), killed \(n("KILLED")), lived \(n("LIVED")), timed out \(n("TIMED OUT")), not covered \(n("NOT COVERED")), not viable \(n("NOT VIABLE")), efficacy \(.test_efficacy * 100 | round / 100)%, \($t)s"
