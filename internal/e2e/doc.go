// Package e2e tests the embed script in a real browser: Debian's Chromium,
// driven with chromedp, loads a host page from one loopback origin that
// embeds /widget.js from a whole Parley stack on another, and the tests use
// the widget the way a visitor and an operator would.
//
// The tests skip with a message when no Chromium is found ($PARLEY_CHROMIUM,
// /usr/bin/chromium, or chromium on the PATH), unless PARLEY_E2E=required,
// which CI sets, makes that a failure. Screenshots go to the test's artifact
// directory (go test -artifacts keeps them) and, with
// PARLEY_UPDATE_SCREENSHOTS=1, to docs/screenshots.
//
// The package has only tests; this file holds its documentation.
package e2e
