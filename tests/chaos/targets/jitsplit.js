// jitsplit.js - two hot JavaScript functions in a 3:1 split of CPU time,
// measured by the script itself: ptprof's share of each must match.
// Usage: node [--perf-basic-prof --interpreted-frames-native-stack]
//        jitsplit.js SECONDS
// Prints "jitsplit hotA=PCT hotB=PCT rounds=N" (PCT: each function's
// share of the CPU time both took, from process.cpuUsage()).
'use strict';

function hotA(n) {
	let s = 0;
	for (let i = 0; i < n; i++)
		s = (s * 31 + i) % 1000003;
	return s;
}

function hotB(n) {
	let s = 1;
	for (let i = 0; i < n; i++)
		s = (s * 17 + i) % 999983;
	return s;
}

function cpu() {
	const u = process.cpuUsage();
	return u.user + u.system;
}

// The driver stays cold (a few calls a second): the two functions are
// compiled on their own, not inlined into it.
function main() {
	const seconds = Number(process.argv[2] || 3);
	const n = 600000;
	let ta = 0, tb = 0, rounds = 0, sink = 0;
	const end = Date.now() + seconds * 1000;

	while (Date.now() < end || rounds < 3) {
		let t = cpu();
		sink += hotA(3 * n);
		const t2 = cpu();
		sink += hotB(n);
		ta += t2 - t;
		tb += cpu() - t2;
		rounds++;
	}
	const pa = (100 * ta / (ta + tb)).toFixed(1);
	const pb = (100 * tb / (ta + tb)).toFixed(1);
	console.log(`jitsplit hotA=${pa} hotB=${pb} rounds=${rounds} sink=${sink % 7}`);
}

main();
