import { appsJobs } from './apps/jobs.ts';
import { auditJobs } from './audit/jobs.ts';
import { consentJobs } from './consent/jobs.ts';
import { identityJobs } from './identity/jobs.ts';
import type { Job } from './jobs.ts';
import { keysJobs } from './keys/jobs.ts';
import { oauthJobs } from './oauth/jobs.ts';
import { portalJobs } from './portal/jobs.ts';
import { webhooksJobs } from './webhooks/jobs.ts';

/** Every domain's scheduled jobs, each in `<domain>/jobs.ts`. */
export const allJobs = (): Job[] => [
  ...keysJobs,
  ...consentJobs,
  ...webhooksJobs,
  ...oauthJobs,
  ...identityJobs,
  ...appsJobs,
  ...portalJobs,
  ...auditJobs,
];
