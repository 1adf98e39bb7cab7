package engine

import "context"

// Run repeats Step until the pipeline waits, finishes, fails, backs off or
// maxSteps steps ran (SPEC §3 --max-steps). It returns every step's result;
// the error is the first step error, which ends the loop. Each step after
// the first takes the labels the previous one wrote instead of reading the
// issue again.
func Run(ctx context.Context, d Deps, ref Ref, maxSteps int) ([]Result, error) {
	if maxSteps < 1 {
		maxSteps = 1
	}
	var results []Result
	for i := 0; i < maxSteps; i++ {
		res, after, err := step(ctx, d, ref)
		results = append(results, res)
		if err != nil || res.Final() || d.DryRun {
			return results, err
		}
		if ctx.Err() != nil {
			return results, ctx.Err()
		}
		ref.Known = after // nil (read the issue) when the step did not say
	}
	return results, nil
}
