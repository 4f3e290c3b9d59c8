#!/bin/sh
# run.sh SECONDS FUZZER...
#     Runs each fuzzer (./FUZZER, seed corpus corpus/<name without fuzz_>/
#     and corpus/<name>2/ if it exists)
#     for SECONDS seconds on a copy of its corpus in a temporary directory, so
#     nothing is written into the repository.  Prints executions, time and
#     crashes per fuzzer and ends with "N passed, N failed"; exits 1 if any
#     failed.  The work directory of a failed fuzzer (log, crash-* inputs) is
#     kept and its path printed; everything else is removed.
#
#     Extra libFuzzer flags can be passed in FUZZ_FLAGS.
set -u

secs=${1:-60}
shift
case $secs in
	''|*[!0-9]*|0) echo "run.sh: SECONDS must be a positive integer, not '$secs'" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cuckoo-fuzz.XXXXXX") || exit 2
keep=0
passed=0
failed=0

for fz in "$@"; do
	name=${fz#fuzz_}
	dir=$work/$name
	mkdir -p "$dir/corpus" "$dir/artifacts"
	if [ -d "$here/corpus/$name" ]; then
		cp "$here/corpus/$name"/* "$dir/corpus/" 2>/dev/null
	fi
	# the minimised corpus of the long runs over version-2 inputs (README.md)
	if [ -d "$here/corpus/${name}2" ]; then
		cp "$here/corpus/${name}2"/* "$dir/corpus/" 2>/dev/null
	fi
	case $name in
		validate) maxlen=8192 ;;
		ops) maxlen=600 ;;
		*) maxlen=4096 ;;
	esac
	echo "== $fz: ${secs}s on $(ls "$dir/corpus" | wc -l) seed inputs"
	start=$(date +%s)
	(cd "$dir" && "$here/$fz" -max_total_time="$secs" -timeout=30 -max_len="$maxlen" \
		-print_final_stats=1 -artifact_prefix="$dir/artifacts/" ${FUZZ_FLAGS:-} \
		corpus >"$dir/log" 2>&1)
	rc=$?
	end=$(date +%s)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log" | tail -n 1)
	cov=$(grep -E '^#[0-9]+' "$dir/log" | grep -o 'cov: [0-9]* ft: [0-9]*' | tail -n 1)
	# slow-unit-* inputs (over libFuzzer's 10 s report threshold, which a
	# loaded machine reaches under the sanitizers) are reported, not failed:
	# a hang is caught by -timeout=30 as a timeout-* artifact.
	crashes=$(ls "$dir/artifacts" | grep -vc '^slow-unit-')
	slow=$(ls "$dir/artifacts" | grep -c '^slow-unit-')
	echo "   executions: ${execs:-?}  exec/s: ${rate:-?}  time: $((end - start))s  ${cov:-cov: ?}  crashes: $crashes  slow inputs: $slow  (exit $rc)"
	if [ "$rc" -eq 0 ] && [ "$crashes" -eq 0 ] && [ -n "$execs" ]; then
		passed=$((passed + 1))
		echo "   PASS"
	else
		failed=$((failed + 1))
		keep=1
		echo "   FAIL: log and inputs kept in $dir"
		for a in "$dir"/artifacts/*; do
			[ -e "$a" ] && echo "   reproduce: $here/$fz $a"
		done
		grep -E 'ERROR: |CHECK FAILED|SUMMARY: |^\*\*\* ' "$dir/log" | head -n 10 | sed 's/^/   | /'
	fi
done

if [ "$keep" -eq 0 ]; then
	rm -rf "$work"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
