import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SensitiveActionDialog } from '@/components/SensitiveActionDialog';
import { ApiError, client, unwrap } from '@/lib/api';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { isSensitiveVerificationRequired, resetSensitiveActions, withSensitiveVerification } from '@/lib/sensitive';
import { ChangeEmailDialog } from './AccountSettingsPage';

afterEach(() => {
  resetSensitiveActions();
  vi.unstubAllGlobals();
});

const NEEDS_CODE = {
  detail: {
    status: 'sensitive_action_verification_required',
    message: 'For your security, we emailed you a link with a 6-digit code. Open it to confirm it’s you, then try again (or confirm with your password).',
  },
};

/**
 * The server's side: send-email-change-verification answers 403 until the session is verified
 * with the right code (123456); each 403 "mails" a code (counted), the sixth is over the limit.
 */
function server() {
  const s = { verified: false, mailed: 0, actions: 0 };
  const handlers = {
    'GET /api/auth/session': () => jsonResponse({ user_id: 'u1', email: 'ada@example.com', email_verified: true, workspace_id: 'w1' }),
    'POST /v1/user/send-email-change-verification': () => {
      s.actions++;
      if (s.verified) return jsonResponse({ status: 'ok' });
      s.mailed++;
      if (s.mailed > 5) return jsonResponse({ detail: { status: 'too_many_attempts', message: 'Too many attempts, please try again in a few minutes.' } }, 429);
      return jsonResponse(NEEDS_CODE, 403);
    },
    'POST /v1/user/verify-sensitive-action-code': ({ body }: { body: unknown }) => {
      if ((body as { code?: string }).code !== '123456') {
        return jsonResponse({ detail: { status: 'invalid_verification_code', message: 'The verification code is wrong or has expired.' } }, 400);
      }
      s.verified = true;
      return jsonResponse({ status: 'ok', message: 'Email access verified. Please try the action again.' });
    },
  };
  return { s, handlers };
}

const send = withSensitiveVerification((email: string) =>
  unwrap(client.POST('/v1/user/send-email-change-verification', { body: { email } })),
);

/** A screen that makes one sensitive call and shows how it ended. */
function Harness() {
  const [result, setResult] = useState('');
  return (
    <>
      <button
        type="button"
        onClick={() =>
          send('new@example.com').then(
            (r) => setResult(`done: ${JSON.stringify(r)}`),
            (e: unknown) => setResult(`failed: ${e instanceof ApiError ? e.errorType : String(e)}`),
          )
        }
      >
        Change it
      </button>
      <output aria-label="result">{result}</output>
      <SensitiveActionDialog />
    </>
  );
}

describe('sensitive-action verification (spec §7, §8)', () => {
  it('recognises the 403 that asks for the code', () => {
    expect(isSensitiveVerificationRequired(new ApiError(403, 'x', 'sensitive_action_verification_required'))).toBe(true);
    expect(isSensitiveVerificationRequired(new ApiError(403, 'x', 'forbidden'))).toBe(false);
    expect(isSensitiveVerificationRequired(new Error('x'))).toBe(false);
  });

  it('asks for the mailed code, refuses a wrong one, then verifies and retries the action with one click', async () => {
    const { s, handlers } = server();
    const { calls } = mockFetch(handlers);
    const user = userEvent.setup();
    renderWithProviders(<Harness />);
    await user.click(screen.getByRole('button', { name: 'Change it' }));

    const dialog = await screen.findByRole('dialog', { name: 'Verify it’s you' });
    const field = within(dialog).getByLabelText('Verification code');
    await waitFor(() => expect(field).toHaveFocus());
    expect(screen.getByLabelText('result')).toHaveTextContent('');

    // Not six digits: refused before any call.
    await user.type(field, '12{Enter}');
    expect(await within(dialog).findByText('Please enter the 6-digit code from the email.')).toBeInTheDocument();
    expect(calls.some((c) => c.url.pathname === '/v1/user/verify-sensitive-action-code')).toBe(false);

    // A wrong code: the server's message, nothing verified.
    await user.clear(field);
    await user.type(field, '000000{Enter}');
    expect(await within(dialog).findByText('The verification code is wrong or has expired.')).toBeInTheDocument();
    expect(s.verified).toBe(false);

    await user.clear(field);
    await user.type(field, '123 456{Enter}');
    expect(await within(dialog).findByText('Email access verified. Please try the action again.')).toBeInTheDocument();
    expect(calls.filter((c) => c.url.pathname === '/v1/user/verify-sensitive-action-code').map((c) => c.body)).toEqual([
      { code: '000000' },
      { code: '123456' },
    ]);
    const again = within(dialog).getByRole('button', { name: 'Try again' });
    await waitFor(() => expect(again).toHaveFocus());
    expect(s.actions).toBe(1);

    await user.keyboard('{Enter}');
    await waitFor(() => expect(screen.getByLabelText('result')).toHaveTextContent('done: {"status":"ok"}'));
    expect(s.actions).toBe(2);
    expect(calls.filter((c) => c.url.pathname === '/v1/user/send-email-change-verification').map((c) => c.body)).toEqual([
      { email: 'new@example.com' },
      { email: 'new@example.com' },
    ]);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('sends a new code by asking again, within the server’s limit', async () => {
    const { s, handlers } = server();
    mockFetch(handlers);
    const user = userEvent.setup();
    renderWithProviders(<Harness />);
    await user.click(screen.getByRole('button', { name: 'Change it' }));
    const dialog = await screen.findByRole('dialog', { name: 'Verify it’s you' });
    expect(within(dialog).getByText('Sent to ada@example.com. It is valid for 10 minutes.', { exact: false })).toBeInTheDocument();

    await user.click(within(dialog).getByRole('button', { name: 'Send a new code' }));
    expect(await within(dialog).findByText('We sent a new code to your email.')).toBeInTheDocument();
    expect(s.mailed).toBe(2);

    s.mailed = 5; // the next one is over the server's limit
    await user.click(within(dialog).getByRole('button', { name: 'Send a new code' }));
    expect(await within(dialog).findByText('Too many attempts, please try again in a few minutes.')).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Verify it’s you' })).toBeInTheDocument();
    expect(screen.getByLabelText('result')).toHaveTextContent('');
  });

  it('gives the caller the original 403 when the user cancels (Escape)', async () => {
    const { handlers } = server();
    mockFetch(handlers);
    const user = userEvent.setup();
    renderWithProviders(<Harness />);
    await user.click(screen.getByRole('button', { name: 'Change it' }));
    await screen.findByRole('dialog', { name: 'Verify it’s you' });
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.getByLabelText('result')).toHaveTextContent('failed: sensitive_action_verification_required'));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('passes the 403 on unchanged where no dialog is mounted', async () => {
    const { handlers } = server();
    mockFetch(handlers);
    await expect(send('new@example.com')).rejects.toMatchObject({ status: 403, errorType: 'sensitive_action_verification_required' });
  });

  it('works from the change-email screen: code, verified, retry, then the new address’s code step', async () => {
    const { handlers } = server();
    mockFetch(handlers);
    const user = userEvent.setup();
    renderWithProviders(
      <>
        <ChangeEmailDialog open onOpenChange={() => undefined} currentEmail="ada@example.com" />
        <SensitiveActionDialog />
      </>,
    );
    await user.type(await screen.findByLabelText('New email'), 'new@example.com');
    await user.click(screen.getByRole('button', { name: 'Send code' }));
    const verify = await screen.findByRole('dialog', { name: 'Verify it’s you' });
    await user.type(within(verify).getByLabelText('Verification code'), '123456');
    await user.click(within(verify).getByRole('button', { name: 'Verify' }));
    await user.click(await within(verify).findByRole('button', { name: 'Try again' }));
    // The email change goes on: the dialog now asks for the code sent to the new address.
    expect(await screen.findByLabelText('Verification code')).toBeInTheDocument();
    expect(screen.getByText('new@example.com')).toBeInTheDocument();
    expect(screen.queryByRole('dialog', { name: 'Verify it’s you' })).not.toBeInTheDocument();
  });
});
