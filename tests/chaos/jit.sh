# tests/chaos/jit.sh - sourced by the tests of JIT code named from a perf
# map (runtime-node.test, runtime-jvm.test) after tests/init.sh.
#
# A runtime's jitsplit program runs hotA and hotB in a 3:1 split of CPU
# time it measures itself and prints "jitsplit hotA=PCT hotB=PCT ...";
# these compare ptprof's folded stacks with it.

# jit_count_ FOLDED FUNC: samples with a frame that names FUNC (a word of
# it: "JS:*hotA /x.js:9:14 [jit]", "long JitSplit.hotA(long) [jit]") and
# is marked [jit].
jit_count_()
{
	awk -v f="$2" '{
		s = $0; sub(/ [0-9]+$/, "", s)
		k = split(s, fr, ";")
		for (i = 1; i <= k; i++)
			if (fr[i] ~ ("[ .:*~^]" f "[ (]") && fr[i] ~ / \[jit\]$/) {
				n += $NF; break
			}
	} END { print n + 0 }' "$1"
}

# rooted_ FOLDED FUNC ROOT: of jit_count_'s samples, those whose
# outermost frame is ROOT.
rooted_()
{
	awk -v f="$2" -v root="$3" '{
		s = $0; sub(/ [0-9]+$/, "", s)
		k = split(s, fr, ";")
		for (i = 1; i <= k; i++)
			if (fr[i] ~ ("[ .:*~^]" f "[ (]") && fr[i] ~ / \[jit\]$/) {
				if (fr[1] == root) n += $NF
				break
			}
	} END { print n + 0 }' "$1"
}

# check_named_ WHAT FOLDED ROOT: hotA and hotB named [jit] in 100 samples
# at least, hotA's share of them within 7 points of $want (the
# program's own), and 80% of them unwound to ROOT.
check_named_()
{
	local what=$1 a b pa rooted
	a=$(jit_count_ "$2" hotA)
	b=$(jit_count_ "$2" hotB)
	[ $((a + b)) -ge 100 ] ||
		fail_ "$what: $a samples name hotA [jit] and $b hotB [jit], expected >= 100 in all: $(sort -t' ' -k2 -n "$2" | tail -3)"
	pa=$(percent_ "$a" "$b")
	info_ "$what: hotA $a, hotB $b samples: hotA $pa% (the program: $want%)"
	in_range_ "$pa" "$(echo "$want" | awk '{ print $1 - 7 }')" \
		"$(echo "$want" | awk '{ print $1 + 7 }')" ||
		fail_ "$what: hotA has $pa% of hotA+hotB, the program measured $want%"
	rooted=$(($(rooted_ "$2" hotA "$3") + $(rooted_ "$2" hotB "$3")))
	info_ "$what: $rooted of $((a + b)) reach $3"
	[ $((rooted * 10)) -ge $(((a + b) * 8)) ] ||
		fail_ "$what: only $rooted of $((a + b)) samples of hotA and hotB reach $3"
}

# want_split_ OUT: the program's hotA share, from its line in OUT, into
# $want.
want_split_()
{
	want=$(sed -n 's/^jitsplit hotA=\([0-9.]*\) .*/\1/p' "$1")
	[ -n "$want" ] || fail_ "the program printed no split: $(cat "$1")"
}
