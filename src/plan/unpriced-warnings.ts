import { formatIssue } from '../errors.js';
import type { Manifest } from '../manifest/index.js';
import { formatCredits, plural } from '../util/format.js';
import { budgetView } from './budget.js';
import type { Plan } from './types.js';

/**
 * `validate`'s warning for each step whose jobs nobody prices while the manifest sets a credit
 * cap: the manifest is valid, but `plan` refuses it and `run` will not start (exit 3) until the
 * step gives `estimate_credits`. Said at validate time because that is when the manifest is being
 * written, not the night it runs.
 *
 * One rule, the gate's: a step is unpriced here exactly when budgetView (plan/budget.ts) counts its
 * jobs as `unknown` — a kind the spec does not price, or a price that hangs on a value known only
 * at run time, with no `estimate_credits` on the step — weighed as for a first run (nothing
 * recorded yet, every job still to submit).
 */
export function unpricedWarnings(plan: Plan, manifest: Pick<Manifest, 'steps' | 'source'>): string[] {
  const view = budgetView(plan, plan.budget.maxCredits);
  if (view.cap === null) return [];
  const cap = formatCredits(view.cap);
  return view.toSubmit.unknown.map(({ step, kind, jobs }) => {
    const index = manifest.steps.find((s) => s.id === step)?.index;
    const where = index === undefined ? {} : { file: manifest.source.file, ...manifest.source.locate(['steps', index]), path: `steps.${index}` };
    return formatIssue({
      ...where,
      message:
        `nobody prices the ${plural(jobs, `${kind} job`)} of step ${step}, and budget.max_credits is ${cap}: ` +
        `\`plan\` and \`run\` refuse ${jobs === 1 ? 'it' : 'them'} (exit 3) until the step gives estimate_credits: { low, expected, high } (credits per job)`,
    });
  });
}
