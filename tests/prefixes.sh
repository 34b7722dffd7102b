# shellcheck shell=sh disable=SC2034
# prefixes.sh - where the full Internet table is (bgp-prefixes.txt.gz, of
# the project's shared data: /work/shared/data/README.md), for the tests
# and benchmarks that load it.  Sourced by sh scripts and by make check's
# AM_TESTS_ENVIRONMENT, which exports what it finds as SRV6D_PREFIXES.
#
# The data is not in the project: CI clones the project with ../shared
# beside it (.ci/run, test.sh).  A git worktree or a dist tree (make
# distcheck's, inside the clone) is elsewhere, so the clone is found
# through git.

# prefixes_find TOP_SRCDIR: set PREFIXES to the first readable of
#   $SRV6D_PREFIXES, when set (then the only one tried);
#   TOP_SRCDIR/../shared/data/bgp-prefixes.txt.gz (a clone, as CI has it);
#   CLONE/../shared/data/bgp-prefixes.txt.gz, CLONE the git clone that
#     TOP_SRCDIR is in or is a worktree of;
# and return 0; else return 1, PREFIXES_TRIED saying where it looked.
prefixes_find() {
	PREFIXES='' PREFIXES_TRIED=''
	if [ -n "${SRV6D_PREFIXES:-}" ]; then
		_prefixes_try "$SRV6D_PREFIXES" "(SRV6D_PREFIXES)"
		return
	fi
	_prefixes_try "$1/../shared/data/bgp-prefixes.txt.gz" && return 0
	_prefixes_clone=$(cd "$1" 2>/dev/null &&
		_d=$(git rev-parse --git-common-dir 2>/dev/null) &&
		cd "$_d/.." && pwd) || {
		PREFIXES_TRIED="$PREFIXES_TRIED (in no git clone)"
		return 1
	}
	_prefixes_try "$_prefixes_clone/../shared/data/bgp-prefixes.txt.gz" \
		"(beside the clone $_prefixes_clone)"
}

# _prefixes_try FILE [NOTE]: PREFIXES=FILE if it is readable, else 1 and
# FILE (and NOTE) added to PREFIXES_TRIED.
_prefixes_try() {
	if [ -r "$1" ]; then
		PREFIXES=$1
		return 0
	fi
	PREFIXES_TRIED="${PREFIXES_TRIED:+$PREFIXES_TRIED, }$1${2:+ $2}"
	return 1
}
