import type { Job } from '../jobs.ts';

export const consentJobs: Job[] = [];
