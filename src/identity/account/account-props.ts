import type { PageProps } from '../pages/layout.tsx';
import type { AccountMessages } from './messages.ts';

export interface AccountProps extends PageProps {
  a: AccountMessages;
  /** Absolute path of the account page, e.g. "/identity/account". */
  base: string;
}
