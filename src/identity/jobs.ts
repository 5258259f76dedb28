import type { Job } from '../jobs.ts';

export const identityJobs: Job[] = [];
