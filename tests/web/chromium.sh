# SPDX-License-Identifier: GPL-2.0-or-later
#
# Headless Chromium for the web tests; source it after tests/lib.sh:
#
#   chromium_dom URL OUT          the DOM after the page loaded and rendered
#   chromium_shot URL OUT.png     a 1200x900 screenshot
#
# Each call gets a fresh profile (removed on exit) and runs with everything
# that would reach beyond loopback switched off.  Root needs --no-sandbox.

CHROMIUM=${CHROMIUM:-chromium}

_chromium() {
	_prof=$(mktemp -d /tmp/rtlab-chromium.XXXXXX) || return 1
	# A page that never finishes must not hang the test.
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--disable-default-apps --disable-extensions \
		--user-data-dir="$_prof" "$@" 2>>"${CHROMIUM_LOG:-/dev/null}"
	_rc=$?
	rm -rf "$_prof"
	return $_rc
}

chromium_dom() {
	_chromium --dump-dom "$1" >"$2"
}

chromium_shot() {
	_chromium --window-size=1200,900 --hide-scrollbars \
		--screenshot="$2" "$1" >/dev/null
}
