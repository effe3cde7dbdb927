import { client, unwrap, type Schemas } from '@/lib/api';

export type MailboxMessage = Schemas['MailboxMessage'];

export const getMailbox = () => unwrap(client.GET('/api/dev/mailbox'));
