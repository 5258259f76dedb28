import type { Job } from '../jobs.ts';

export const oauthJobs: Job[] = [];
