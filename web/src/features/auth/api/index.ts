import { z } from 'zod';
import { ApiError, client, unwrap, type Schemas } from '@/lib/api';

export type Session = Schemas['SessionResponse'];

export const sessionQueryKey = ['session'] as const;

/** Current session, or null when signed out (401). */
export async function getSession(): Promise<Session | null> {
  try {
    return await unwrap(client.GET('/api/auth/session'));
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) return null;
    throw err;
  }
}

export const signUp = (body: Schemas['SignUpRequest']) => unwrap(client.POST('/api/auth/sign-up', { body }));

export const signIn = (body: Schemas['SignInRequest']) => unwrap(client.POST('/api/auth/sign-in', { body }));

export const signOut = () => unwrap(client.POST('/api/auth/sign-out'));

export const verifyEmail = (code: string) => unwrap(client.POST('/api/auth/verify-email', { body: { code } }));

export const sendVerificationEmail = (email: string) =>
  unwrap(client.POST('/api/auth/send-verification-email', { body: { email } }));

export const sendPasswordResetEmail = (email: string) =>
  unwrap(client.POST('/api/auth/send-password-reset-email', { body: { email } }));

export const checkResetCode = (code: string) => unwrap(client.POST('/api/auth/check-reset-code', { body: { code } }));

export const resetPassword = (code: string, password: string) =>
  unwrap(client.POST('/api/auth/reset-password', { body: { code, password } }));

/** True when the development mailbox answers (no SMTP configured). */
export async function isDevMailboxAvailable(): Promise<boolean> {
  try {
    await unwrap(client.GET('/api/dev/mailbox'));
    return true;
  } catch {
    return false;
  }
}

export const PASSWORD_MIN_LENGTH = 8;

const email = z
  .string()
  .trim()
  .min(1, 'Please enter your email address.')
  .pipe(z.email('Please enter a valid email address.'));

const password = z.string().min(PASSWORD_MIN_LENGTH, `Password must be at least ${PASSWORD_MIN_LENGTH} characters.`);

export const signUpSchema = z.object({
  email,
  password,
  terms: z.literal(true, 'You must agree to the Terms of Service and Privacy Policy to continue.'),
});

export const signInSchema = z.object({
  email,
  password: z.string().min(1, 'Please enter your password.'),
});

export const emailSchema = z.object({ email });

export const newPasswordSchema = z.object({ password });

export type FieldErrors<K extends string> = Partial<Record<K, string>>;

/** First error message per top-level field. */
export function fieldErrors<K extends string>(error: z.ZodError): FieldErrors<K> {
  const out: FieldErrors<K> = {};
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? '') as K;
    if (key && !out[key]) out[key] = issue.message;
  }
  return out;
}
