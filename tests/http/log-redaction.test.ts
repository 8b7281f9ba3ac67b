import { describe, expect, it } from 'vitest';
import { maskLicenseCodes } from '../../src/adapters/http/log-redaction.js';

const CODE = 'ABCDE-FGHJK-MNPQR-STVWX-YZ012-34567';

describe('maskLicenseCodes', () => {
  it('masks a code and its near forms wherever it stands in the URL', () => {
    expect(maskLicenseCodes(`/api/admin/user/${CODE}`)).toBe('/api/admin/user/[license-code]');
    expect(maskLicenseCodes(`/api/admin/user/${CODE};x`)).toBe('/api/admin/user/[license-code];x');
    expect(maskLicenseCodes(`/api/admin/user/${CODE}%`)).toBe('/api/admin/user/[license-code]');
    expect(maskLicenseCodes(`/u?query=${CODE.toLowerCase()}&limit=5`)).toBe('/u?query=[license-code]&limit=5');
    expect(maskLicenseCodes(`/u/${CODE.slice(0, 20)}`)).toBe(`/u/${CODE.slice(0, 20)}`);
  });

  it('leaves ids, route words and short values readable', () => {
    const url = '/api/console/applications/0b6f1c9e-3d2a-4f6b-9a1e-5c7d8e9f0a1b/users/4a5b6c7d-1e2f-4a3b-8c9d-0e1f2a3b4c5d?limit=50&offset=100';
    expect(maskLicenseCodes(url)).toBe(url);
    expect(maskLicenseCodes('/api/admin/files/by-name/release-1.2.3.zip')).toBe('/api/admin/files/by-name/release-1.2.3.zip');
  });
});
