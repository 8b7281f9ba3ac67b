import { LICENSE_CODE_SYMBOLS } from '../../domain/license.js';

/** License codes in logged URLs: no parsing is trusted, since a near-code form still carries the
 * secret, so any code-shaped run is masked however it would decode, UUIDs aside (docs/security.md,
 * "Logs"). Masking a long name of such characters is the price of never missing a code. */
const RUN = /[0-9A-Za-z%+-]+/g;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const MASKED_LICENSE_CODE = '[license-code]';

export function maskLicenseCodes(url: string): string {
  return url.replace(RUN, (run) => {
    const symbols = run.replace(/[^0-9A-Za-z]/g, '').length;
    return symbols >= LICENSE_CODE_SYMBOLS && !UUID.test(run) ? MASKED_LICENSE_CODE : run;
  });
}
