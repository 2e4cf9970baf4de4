import fc from 'fast-check';

// CI replays one fixed seed so a red run can be reproduced; locally every run explores new
// inputs (fast-check prints the seed of any failure). FC_SEED pins one explicitly.
const seed =
  process.env.FC_SEED !== undefined
    ? Number(process.env.FC_SEED)
    : process.env.CI
      ? 20_261_121
      : undefined;
if (seed !== undefined) fc.configureGlobal({ seed });
