// When each step of the runtime's start happened, for the benchmark (bench/engine_bench.py) and a
// curious reader (lllm.timings in the console); nothing is printed. Times are epoch ms
// (performance.timeOrigin + now), so the page's steps and both workers' sit on one clock.

export const timeline = [];

/** Note that `step` happened now. */
export function mark(step) {
  timeline.push([step, performance.timeOrigin + performance.now()]);
}
