// jitsplit-fp.js - a Node target for tests/chaos/runtime-node.test (the
// frame-pointer unwinding through V8's JIT frames).
//
//   node --perf-basic-prof --interpreted-frames-native-stack \
//        jitsplit-fp.js SECONDS
//
// Prints "ready", then runs two hot JS functions, fpFib (recursive) and
// fpTrig (a Math loop), giving fpFib three quarters of the time by its
// own clock, for SECONDS seconds or until a file "stop" appears in the
// current directory.  Every call's result is checked.
// Prints "ok FIB_MS TRIG_MS" (exit 0) or "WRONG ..." (exit 1).
'use strict';
const fs = require('fs');

function fpFib(n) {
	return n < 2 ? n : fpFib(n - 1) + fpFib(n - 2);
}

function fpTrig(n) {
	let s = 0;
	for (let i = 0; i < n; i++)
		s += Math.sin(i) * Math.cos(i) + Math.sqrt(i);
	return s;
}

const end = Date.now() + 1000 * Number(process.argv[2] || 10);
const trigWant = fpTrig(200000);
let fibMs = 0, trigMs = 0, wrong = 0;
console.log('ready');
for (;;) {
	// whichever is behind its share (3:1) runs next, ~10 ms a call
	let t = process.hrtime.bigint();
	if (fibMs <= 3 * trigMs) {
		if (fpFib(25) !== 75025)
			wrong++;
		fibMs += Number(process.hrtime.bigint() - t) / 1e6;
	} else {
		if (fpTrig(200000) !== trigWant)
			wrong++;
		trigMs += Number(process.hrtime.bigint() - t) / 1e6;
	}
	if (Date.now() >= end || fs.existsSync('stop'))
		break;
}
if (wrong) {
	console.log('WRONG ' + wrong + ' results');
	process.exit(1);
}
console.log('ok ' + Math.round(fibMs) + ' ' + Math.round(trigMs));
