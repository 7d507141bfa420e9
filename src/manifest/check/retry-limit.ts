/**
 * The most automatic retries of a failed job in one run (`retries:` of a manifest or a step,
 * `--retries`). Why a cap: each retry may be paid for again, and a typo like `retries: 100` would
 * keep paying for a job the service cannot make. A module of its own, without zod, so the CLI's
 * flags can name it without loading the manifest's schemas.
 */
export const MAX_RETRIES = 10;
