import { describe, expect, it } from 'vitest';
import { backupCodesText, describeUserAgent, isTotpCode, normaliseBackupCode } from '.';
import { groupSecret } from '../components/TwoFactorSetupDialog';

describe('security helpers', () => {
  it('accepts 6-digit TOTP codes, spaces ignored', () => {
    expect(isTotpCode('123456')).toBe(true);
    expect(isTotpCode('123 456')).toBe(true);
    expect(isTotpCode('12345')).toBe(false);
    expect(isTotpCode('12345a')).toBe(false);
  });
  it('normalises backup codes', () => {
    expect(normaliseBackupCode('  K7M2P-X9Q4R ')).toBe('k7m2p-x9q4r');
  });
  it('writes the backup codes file one code a line', () => {
    const text = backupCodesText(['a', 'b'], 'ada@example.com');
    expect(text.split('\n')).toEqual(['Timbre backup codes', 'Account: ada@example.com', 'Each code works once.', '', 'a', 'b', '']);
  });
  it('describes browsers', () => {
    expect(
      describeUserAgent(
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
      ),
    ).toBe('Chrome on macOS');
    expect(describeUserAgent('Mozilla/5.0 (Windows NT 10.0; rv:121.0) Gecko/20100101 Firefox/121.0')).toBe('Firefox on Windows');
    expect(describeUserAgent('curl/8.0')).toBe('curl');
    expect(describeUserAgent('')).toBe('Unknown browser');
  });
  it('groups the secret in fours', () => {
    expect(groupSecret('JBSWY3DPEHPK3PXP')).toBe('JBSW Y3DP EHPK 3PXP');
  });
});
