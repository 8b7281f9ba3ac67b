import { LICENSE_CODE_SYMBOLS } from '../../domain/license.js';

/**
 * License codes in logged URLs (docs/security.md, Security notes, "Logs"). Codes travel in paths (admin
 * lookup, console licenses) and query values, and a near-code form (`CODE;x`, a trailing `%`,
 * percent-encoded symbols, `+` or `%20` between groups, look-alike letters, one symbol too many)
 * still carries the secret even though it is not a code. So no parsing is trusted: any run of
 * letters, digits, `-`, `+` and `%` holding at least as many letters and digits as a code has
 * symbols is masked, however it would decode. A UUID (an id, not a secret) is left as it is;
 * long names made only of such characters are masked too, the price of never missing a code.
 */
const RUN = /[0-9A-Za-z%+-]+/g;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const MASKED_LICENSE_CODE = '[license-code]';

export function maskLicenseCodes(url: string): string {
  return url.replace(RUN, (run) => {
    const symbols = run.replace(/[^0-9A-Za-z]/g, '').length;
    return symbols >= LICENSE_CODE_SYMBOLS && !UUID.test(run) ? MASKED_LICENSE_CODE : run;
  });
}
