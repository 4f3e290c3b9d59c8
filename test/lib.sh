# Shared by the shell tests: "ok"/"not ok" lines and the closing count.
pass=0
fail=0

# check NAME EXPECTED ACTUAL
check() {
  if [ "$2" = "$3" ]; then echo "ok - $1"; pass=$((pass + 1))
  else echo "not ok - $1: expected '$2', got '$3'"; fail=$((fail + 1)); fi
}

# finish: prints "N passed, N failed" and exits 0 when nothing failed
finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
