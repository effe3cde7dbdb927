import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { Button } from '@/components/Button';
import { Spinner } from '@/components/Spinner';
import { AuthHeading, Notice } from '@/components/auth/AuthLayout';
import { useSession, useSignOut } from '@/lib/session';
import { ApiError, httpErrorMessage } from '@/lib/api';
import { DEFAULT_APP_ROUTE } from '@/lib/constants';
import { formatDate } from '@/lib/format';
import { toast } from '@/lib/toast';
import {
  acceptInvite,
  declineInvite,
  getInvite,
  INVITE_MESSAGES,
  inviteQueryKey,
  sameEmail,
  seatLabel,
} from '../api';
import { clearStoredInviteCode, invitePath, storeInviteCode } from '@/lib/invite-code';

const linkButton =
  'flex h-11 w-full items-center justify-center rounded-lg text-base font-medium focus-visible:outline-2 focus-visible:outline-offset-2';

/**
 * /app/invite?code=…: what the invitation is for (public), then accept or
 * decline when signed in with the invited email; otherwise sign in or sign up
 * with the code kept under workspaceInviteCode.
 */
export function InvitePage() {
  const [params] = useSearchParams();
  const code = params.get('code') ?? '';
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const session = useSession();
  const signOut = useSignOut();
  const [declined, setDeclined] = useState(false);

  const invite = useQuery({
    queryKey: inviteQueryKey(code),
    queryFn: () => getInvite(code),
    enabled: code !== '',
    retry: false,
  });

  const signedIn = !!session.data;
  // Keep the code while a signed-out invitee signs in or up (spec §9 key workspaceInviteCode).
  useEffect(() => {
    if (code && invite.isSuccess && session.isSuccess && !signedIn) storeInviteCode(code);
  }, [code, invite.isSuccess, session.isSuccess, signedIn]);

  const accept = useMutation({
    mutationFn: () => acceptInvite(code),
    onSuccess: async () => {
      clearStoredInviteCode();
      toast.success(INVITE_MESSAGES.accepted(invite.data?.workspace_name ?? 'the workspace'));
      // The session now works in the joined workspace: everything is fetched again.
      // The invite is used up: drop it before refetching, or the page would ask for it again (404).
      queryClient.removeQueries({ queryKey: inviteQueryKey(code) });
      await queryClient.resetQueries();
      navigate(DEFAULT_APP_ROUTE, { replace: true });
    },
    onError: (err) => {
      if (err instanceof ApiError && err.errorType === 'invite_not_found') clearStoredInviteCode();
      toast.error(httpErrorMessage(err));
      void invite.refetch();
    },
  });
  const decline = useMutation({
    mutationFn: () => declineInvite(code),
    onSuccess: () => {
      clearStoredInviteCode();
      setDeclined(true);
      toast(INVITE_MESSAGES.declined);
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });

  if (!code || invite.isError) {
    const notFound = !code || (invite.error instanceof ApiError && invite.error.status === 404);
    return (
      <>
        <AuthHeading title="Workspace invitation" />
        <Notice tone="error">{notFound ? INVITE_MESSAGES.invalid : httpErrorMessage(invite.error)}</Notice>
        <p className="mt-6 text-center text-sm">
          <Link to={signedIn ? DEFAULT_APP_ROUTE : '/app/sign-in'} className="font-medium underline-offset-4 hover:underline">
            {signedIn ? 'Go to Timbre' : 'Back to sign in'}
          </Link>
        </p>
      </>
    );
  }
  if (invite.isPending || session.isPending) {
    return (
      <div className="flex items-center gap-3 text-sm text-gray-600 dark:text-gray-400">
        <Spinner /> Loading invitation…
      </div>
    );
  }

  const data = invite.data;
  const heading = (
    <AuthHeading
      title={`Join ${data.workspace_name}`}
      subtitle={
        <>
          You are invited to the <strong className="text-gray-900 dark:text-gray-100">{data.workspace_name}</strong>{' '}
          workspace on Timbre as {seatLabel(data.seat_type) === 'Admin' ? 'an admin' : 'a member'}.
        </>
      }
    />
  );
  const details = (
    <dl className="mb-6 grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 rounded-xl border border-gray-200 p-4 text-sm dark:border-gray-800">
      <dt className="text-gray-500">Invited email</dt>
      <dd className="truncate font-medium" data-testid="invite-email">
        {data.email}
      </dd>
      <dt className="text-gray-500">Role</dt>
      <dd className="font-medium">{seatLabel(data.seat_type)}</dd>
      <dt className="text-gray-500">Expires</dt>
      <dd className="font-medium">{formatDate(data.expires_at_unix)}</dd>
    </dl>
  );

  if (declined) {
    return (
      <>
        <AuthHeading title="Invitation declined" />
        <Notice>{INVITE_MESSAGES.declined}</Notice>
        <p className="mt-6 text-center text-sm">
          <Link to={DEFAULT_APP_ROUTE} className="font-medium underline-offset-4 hover:underline">
            Go to Timbre
          </Link>
        </p>
      </>
    );
  }

  if (!session.data) {
    const redirect = encodeURIComponent(invitePath(code));
    return (
      <>
        {heading}
        {details}
        <p className="mb-4 text-sm text-gray-600 dark:text-gray-400">
          Sign in or create an account with <strong>{data.email}</strong> to accept.
        </p>
        <div className="flex flex-col gap-3">
          <Link
            to={`/app/sign-in?redirect=${redirect}`}
            className={`${linkButton} bg-gray-900 text-white hover:bg-gray-800 dark:bg-white dark:text-gray-900 dark:hover:bg-gray-200`}
          >
            Sign in to accept
          </Link>
          <Link
            to={`/app/sign-up?email=${encodeURIComponent(data.email)}`}
            className={`${linkButton} border border-gray-300 bg-white text-gray-900 hover:bg-gray-50 dark:border-gray-700 dark:bg-gray-900 dark:text-gray-100 dark:hover:bg-gray-800`}
          >
            Create an account
          </Link>
        </div>
      </>
    );
  }

  if (!sameEmail(session.data.email, data.email)) {
    return (
      <>
        {heading}
        {details}
        <Notice tone="error">
          This invitation was sent to <strong>{data.email}</strong>, but you are signed in as{' '}
          <strong>{session.data.email}</strong>. Sign out, then sign in with the invited address to accept it.
        </Notice>
        <div className="mt-6 flex flex-col gap-3">
          <Button
            size="lg"
            onClick={() => {
              storeInviteCode(code);
              signOut();
            }}
          >
            Sign out
          </Button>
          <Link to={DEFAULT_APP_ROUTE} className="text-center text-sm font-medium underline-offset-4 hover:underline">
            Go to Timbre
          </Link>
        </div>
      </>
    );
  }

  return (
    <>
      {heading}
      {details}
      <div className="flex flex-col gap-3">
        <Button size="lg" loading={accept.isPending} disabled={decline.isPending} onClick={() => accept.mutate()}>
          Accept invitation
        </Button>
        <Button
          size="lg"
          variant="outline"
          loading={decline.isPending}
          disabled={accept.isPending}
          onClick={() => decline.mutate()}
        >
          Decline
        </Button>
      </div>
    </>
  );
}
