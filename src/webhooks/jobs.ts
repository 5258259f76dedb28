import type { Job } from '../jobs.ts';

export const webhooksJobs: Job[] = [];
