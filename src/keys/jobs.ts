import type { Job } from '../jobs.ts';

export const keysJobs: Job[] = [];
