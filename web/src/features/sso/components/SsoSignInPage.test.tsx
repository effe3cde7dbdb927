import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { browser, ssoErrorText, ssoStartUrl } from '../api';
import { SsoSignInPage } from './SsoSignInPage';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function setup(route = '/app/sso') {
  return renderWithProviders(<SsoSignInPage />, { route, path: '/app/sso' });
}

describe('SSO sign-in', () => {
  it('finds the provider and navigates to /api/sso/start with the email and redirect', async () => {
    const assign = vi.spyOn(browser, 'assign').mockImplementation(() => undefined);
    const { calls } = mockFetch({
      'GET /v1/workspace/find-sso-provider': () =>
        jsonResponse({ provider_id: 'p', provider_type: 'oidc', workspace_id: 'w', name: 'Acme', sso_start_url: '/api/sso/start?email=x' }),
    });
    const user = userEvent.setup();
    setup('/app/sso?redirect=%2Fapp%2Fusage');
    await user.type(screen.getByLabelText('Work email'), 'mia@acme.test');
    await user.click(screen.getByRole('button', { name: 'Continue with SSO' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/api/sso/start?email=mia%40acme.test&redirect=%2Fapp%2Fusage'));
    expect(calls[0]!.url.searchParams.get('email')).toBe('mia@acme.test');
  });

  it('passes a stored invite code to the lookup', async () => {
    vi.spyOn(browser, 'assign').mockImplementation(() => undefined);
    localStorage.setItem('workspaceInviteCode', 'inv1');
    const { calls } = mockFetch({
      'GET /v1/workspace/find-sso-provider': () =>
        jsonResponse({ provider_id: 'p', provider_type: 'saml', workspace_id: 'w', name: 'Acme', sso_start_url: '/x' }),
    });
    const user = userEvent.setup();
    setup();
    await user.type(screen.getByLabelText('Work email'), 'mia@acme.test');
    await user.click(screen.getByRole('button', { name: 'Continue with SSO' }));
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0]!.url.searchParams.get('invite_code')).toBe('inv1');
  });

  it('says when no provider covers the email', async () => {
    const assign = vi.spyOn(browser, 'assign').mockImplementation(() => undefined);
    mockFetch({
      'GET /v1/workspace/find-sso-provider': () =>
        jsonResponse({ detail: { status: 'sso_provider_not_found', message: 'no' } }, 404),
    });
    const user = userEvent.setup();
    setup();
    await user.type(screen.getByLabelText('Work email'), 'mia@nowhere.test');
    await user.click(screen.getByRole('button', { name: 'Continue with SSO' }));
    expect(
      await screen.findByText('Single sign-on is not set up for this email address. Sign in with your password instead.'),
    ).toBeInTheDocument();
    expect(assign).not.toHaveBeenCalled();
  });

  it('validates the email before asking', async () => {
    const { calls } = mockFetch({});
    const user = userEvent.setup();
    setup();
    await user.type(screen.getByLabelText('Work email'), 'nope');
    await user.click(screen.getByRole('button', { name: 'Continue with SSO' }));
    expect(await screen.findByText('Please enter a valid email address.')).toBeInTheDocument();
    expect(calls).toHaveLength(0);
  });

  it('shows the text of a failed callback by its code, never the URL message', async () => {
    mockFetch({});
    setup('/app/sso?error=sso_not_member&message=Call%20us%20at%20555');
    expect(
      await screen.findByText('Your account is not a member of this workspace. Ask a workspace admin to invite you.'),
    ).toBeInTheDocument();
    expect(screen.queryByText(/555/)).not.toBeInTheDocument();
    expect(ssoErrorText('made_up')).toBe('Something went wrong, please try again later.');
    expect(ssoErrorText(null)).toBeNull();
    expect(ssoStartUrl('a@b.co')).toBe('/api/sso/start?email=a%40b.co');
  });
});
