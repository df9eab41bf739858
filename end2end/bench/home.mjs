// The signed-in home page under Lighthouse's mobile preset (its default, simulated run:
// the one the target is judged on), several times in a row, for comparing two builds of
// the page (its load, hydration and the offline copy's first fill) at less cost than a
// whole page run:
//   node bench/home.mjs <base url> <session token> [runs, 3 by default]
// Prints one JSON object: {"home": [one run's figures each, as page.mjs keeps them]}.
import { runLighthouse, strayRejections } from "./lighthouse.mjs";

const [base, token, runsArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 3);
const home = [];
for (let run = 0; run < runs; run++) {
  home.push(await runLighthouse(base, token, "mobile", "/"));
  const last = home.at(-1);
  console.error(
    `home page, mobile, run ${run + 1} of ${runs}: performance ${last.performance}, TBT ${Math.round(last.tbt_ms)} ms (host CPU index ${last.benchmark_index})`,
  );
}
console.log(JSON.stringify({ home, stray_rejections: strayRejections }));
