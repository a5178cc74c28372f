# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# What the two checks of the userspace build, scripts/check-explore.sh and
# scripts/check-tsan.sh, share: the work directory, removed at the exit
# unless kept, and the failure that keeps it. Sourced, not run, once the
# script has set
#   user_check  the word its lines begin with (explore, tsan)
#   work        its work directory
#   keep        1 to keep the work directory whatever happens

# shellcheck disable=SC2154 # set by the script that sources this
user_cleanup() {
	if [ "$keep" = 1 ]; then
		echo "$user_check: work directory kept: $work" >&2
	else
		rm -rf "$work"
	fi
}
trap user_cleanup EXIT

# fail WHY...: says why, keeps the work directory, exits 1.
fail() {
	echo "$user_check: FAIL: $*" >&2
	keep=1
	exit 1
}
