import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toast } from '@/lib/toast';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { verifyErrorText, type SsoDomain } from '../api/ssoDomains';
import { SsoDomainsPanel } from './SsoDomainsPanel';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const TOKEN = 'timbre-domain-verification=abcdefghijklmnopqrstuvwxyz012345';

function domain(name: string, verified: boolean): SsoDomain {
  return {
    domain: name,
    provider_id: 'p1',
    provider_name: 'Okta',
    status: verified ? 'verified' : 'pending',
    verified,
    verified_at_unix: verified ? 1_700_000_000 : null,
    verified_by_user_email: verified ? 'owner@acme.test' : null,
    created_at_unix: 1,
    txt_record: { type: 'TXT', name: `_timbre-challenge.${name}`, value: TOKEN },
  };
}

describe('SSO domain verification', () => {
  it('lists domains with their status and the TXT record to copy', async () => {
    mockFetch({ 'GET /api/workspace/sso/domains': () => jsonResponse({ domains: [domain('acme.test', true), domain('acme.org', false)] }) });
    const user = userEvent.setup(); // installs its own clipboard stub: replace it after
    const writeText = vi.fn(async (_: string) => undefined);
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText } });
    renderWithProviders(<SsoDomainsPanel />);

    const verified = await screen.findByTestId('sso-domain-acme.test');
    expect(within(verified).getByText('Verified')).toBeInTheDocument();
    expect(within(verified).getByText(/verified by owner@acme\.test on/)).toBeInTheDocument();
    expect(within(verified).queryByRole('button', { name: /Verify/ })).not.toBeInTheDocument();

    const pending = screen.getByTestId('sso-domain-acme.org');
    expect(within(pending).getByText('Pending')).toBeInTheDocument();
    expect(within(pending).getByText('_timbre-challenge.acme.org')).toBeInTheDocument();
    expect(within(pending).getByText(TOKEN)).toBeInTheDocument();
    await user.click(within(pending).getByRole('button', { name: 'Copy record value for acme.org' }));
    expect(writeText).toHaveBeenCalledWith(TOKEN);
    await user.click(within(pending).getByRole('button', { name: 'Copy record name for acme.org' }));
    expect(writeText).toHaveBeenLastCalledWith('_timbre-challenge.acme.org');
  });

  it('shows why a verification failed under the domain, DNS failures included', async () => {
    const missing = 'No TXT record was found at _timbre-challenge.acme.org. Publish a TXT record named _timbre-challenge.acme.org …';
    const dns = 'Timbre could not look up _timbre-challenge.acme.org: it answered: server misbehaving. This is a DNS problem, not a wrong record …';
    let answer = () => jsonResponse({ detail: { status: 'sso_domain_txt_missing', message: missing } }, 409);
    const { calls } = mockFetch({
      'GET /api/workspace/sso/domains': () => jsonResponse({ domains: [domain('acme.org', false)] }),
      'POST /api/workspace/sso/domains/acme.org/verify': () => answer(),
    });
    const user = userEvent.setup();
    renderWithProviders(<SsoDomainsPanel />);
    const verify = await screen.findByRole('button', { name: 'Verify acme.org' });
    await user.click(verify);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(missing);
    expect(verify).toHaveAttribute('aria-describedby', alert.id);

    answer = () => jsonResponse({ detail: { status: 'sso_domain_dns_error', message: dns } }, 502);
    await user.click(verify);
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent(dns));
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(2);
    expect(screen.getByText('Pending')).toBeInTheDocument();
  });

  it('marks the domain verified after a successful check', async () => {
    const success = vi.spyOn(toast, 'success');
    let done = false;
    mockFetch({
      'GET /api/workspace/sso/domains': () => jsonResponse({ domains: [domain('acme.org', done)] }),
      'POST /api/workspace/sso/domains/acme.org/verify': () => {
        done = true;
        return jsonResponse(domain('acme.org', true));
      },
    });
    const user = userEvent.setup();
    renderWithProviders(<SsoDomainsPanel />);
    await user.click(await screen.findByRole('button', { name: 'Verify acme.org' }));
    expect(await screen.findByText('Verified')).toBeInTheDocument();
    expect(success).toHaveBeenCalledWith('acme.org is verified.');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.queryByText(TOKEN)).not.toBeInTheDocument();
  });

  it('keeps generic text for errors that are not about the domain', () => {
    expect(verifyErrorText(new Error('boom'))).not.toBe('boom');
  });
});
