# browser.sh - headless Debian chromium for the tests that check an SVG
# through the DOM (sourced after tests/init.sh; flame-svg.test has the
# same helpers inline).  Chromium keeps its profile, cache and HOME in
# $tmpdir, is kept off the network (the flags below; the pages are local
# files with nothing to fetch), and every run is killed after 60 s.
# Skips the test when chromium is not installed.
command -v chromium > /dev/null || skip_ "chromium is not installed"
HOME=$tmpdir XDG_CONFIG_HOME=$tmpdir/config XDG_CACHE_HOME=$tmpdir/cache
export HOME XDG_CONFIG_HOME XDG_CACHE_HOME
browser_runs_=0

# chromium_ ARG...: one headless chromium run (stdout to stdout, stderr
# to chrome.N.err), a fresh profile each time, bounded to 60 s.
chromium_()
{
	local rc
	browser_runs_=$((browser_runs_ + 1))
	timeout -k 5 60 chromium --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$tmpdir/chrome.$browser_runs_" \
		--window-size=1200,600 --virtual-time-budget=2000 "$@" \
		2> "chrome.$browser_runs_.err"
	rc=$?
	case $rc in
	124 | 137) fail_ "chromium $* ran longer than 60 s (killed)" ;;
	0) ;;
	*) fail_ "chromium $* exited $rc: $(tail -n 3 "chrome.$browser_runs_.err")" ;;
	esac
}

# svg_page_ NAME SVG JS: NAME.html, the markup of SVG inlined in an HTML
# page whose script, after load, runs the body of a function JS with
# `svg` (the flame graph's element) and frame(n) (the <g> of the frame
# named n) at hand, and sets the document's title to "RESULT|" and what
# JS returns ("k=v|k=v..."); then NAME.dom, the DOM chromium dumped after
# load.
svg_page_()
{
	{
		printf '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
		printf '<title>pending</title></head>\n<body style="margin:0">\n'
		sed '1{/^<?xml/d;}' "$2"
		cat << EOF2
<script>
window.addEventListener("load", function () {
	var svg = document.querySelector("svg.flamegraph"), out;
	function frame(n) {
		return svg.querySelector('g.frame[data-name="' + n + '"]');
	}
	try {
		out = (function () { $3 })();
	} catch (e) {
		out = "error=" + e;
	}
	document.title = "RESULT|" + out;
});
</script>
</body></html>
EOF2
	} > "$1.html"
	chromium_ --dump-dom "file://$tmpdir/$1.html" > "$1.dom"
	grep -q '<title>RESULT|' "$1.dom" ||
		fail_ "$1.html: the page's script did not run"
	info_ "$1: $(sed -n 's/.*<title>RESULT|\([^<]*\)<\/title>.*/\1/p' "$1.dom")"
	[ -z "$(dom_result_ "$1.dom" error)" ] ||
		fail_ "$1.html: $(dom_result_ "$1.dom" error)"
}

# dom_result_ DOM KEY: the value of KEY in the RESULT title of a DOM.
dom_result_()
{
	sed -n 's/.*<title>RESULT|\([^<]*\)<\/title>.*/\1/p' "$1" |
		tr '|' '\n' | sed -n "s/^$2=//p"
}
