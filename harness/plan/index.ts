/** Stage 2, planning: which loaded cases run, from filters and what the implementation declares. */
export { planCases, selects } from './plan.ts';
