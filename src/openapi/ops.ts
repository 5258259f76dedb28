import { z } from 'zod';
import { type ApiRoute, route } from './route.ts';

export const Health = z.object({ status: z.literal('ok'), version: z.string() });
export const Ready = z.object({ status: z.literal('ready') });
export const NotReady = z.object({ status: z.literal('unavailable'), problems: z.array(z.string()) });

export const opsRoutes: ApiRoute[] = [
  route({
    method: 'get',
    path: '/healthz',
    operationId: 'healthz',
    summary: 'Liveness',
    tag: 'Operations',
    responses: { 200: { description: 'The process is up.', schema: Health } },
  }),
  route({
    method: 'get',
    path: '/readyz',
    operationId: 'readyz',
    summary: 'Readiness',
    tag: 'Operations',
    responses: {
      200: { description: 'The database is writable and a signing key is active.', schema: Ready },
      503: { description: 'What is missing.', schema: NotReady },
    },
  }),
  route({
    method: 'get',
    path: '/metrics',
    operationId: 'metrics',
    summary: 'Prometheus metrics',
    tag: 'Operations',
    responses: {
      200: { description: 'Prometheus text format 0.0.4.', schema: z.string(), contentType: 'text/plain' },
    },
  }),
];
