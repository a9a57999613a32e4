import { describe, expect, it } from 'vitest';
import { assertMove, canMove, isRunStatus, TransitionRefused, type RunStatus } from '../../../src/platform/runs/lifecycle.js';

describe('the run lifecycle table', () => {
  it('allows the path of a confirmed run with task stages, and nothing that skips a step', () => {
    const path: RunStatus[] = [
      'pending',
      'pre_plan_running',
      'pre_plan_completed',
      'plan_queued',
      'planning',
      'post_plan_running',
      'post_plan_completed',
      'planned',
      'confirmed',
      'pre_apply_running',
      'pre_apply_completed',
      'apply_queued',
      'applying',
      'applied',
    ];
    for (let step = 1; step < path.length; step++) expect(canMove(path[step - 1]!, path[step]!)).toBe(true);
    expect(canMove('pending', 'planning')).toBe(false);
    expect(canMove('planned', 'applying')).toBe(false);
    expect(canMove('plan_queued', 'planned')).toBe(false);
    expect(canMove('applying', 'discarded')).toBe(false);
  });

  it('lets every unfinished status end errored or canceled, and nothing leave a final status', () => {
    for (const from of ['pending', 'planning', 'post_plan_running', 'planned', 'planned_and_saved', 'applying'] as const) {
      expect(canMove(from, 'errored')).toBe(true);
      expect(canMove(from, 'canceled')).toBe(true);
      expect(canMove(from, 'force_canceled')).toBe(true);
    }
    for (const from of ['applied', 'errored', 'discarded', 'planned_and_finished']) expect(canMove(from, 'errored')).toBe(false);
  });

  it('ends a saved plan at planned_and_saved, confirmable or discarded from there, never auto-applied past it', () => {
    expect(canMove('planning', 'planned_and_saved')).toBe(true);
    expect(canMove('post_plan_completed', 'planned_and_saved')).toBe(true);
    expect(canMove('planned_and_saved', 'confirmed')).toBe(true);
    expect(canMove('planned_and_saved', 'discarded')).toBe(true);
    expect(canMove('planned_and_saved', 'apply_queued')).toBe(false);
    expect(canMove('planned_and_saved', 'planned')).toBe(false);
  });

  it('lets a status the engine never writes only end, so a restart can clear it', () => {
    expect(isRunStatus('cost_estimated')).toBe(false);
    expect(canMove('cost_estimated', 'errored')).toBe(true);
    expect(canMove('cost_estimated', 'planned')).toBe(false);
  });

  it('throws a programming error for a refused move', () => {
    expect(() => assertMove('applied', 'planning')).toThrow(TransitionRefused);
    expect(() => assertMove('applied', 'planning')).toThrow('a run cannot move from applied to planning');
    expect(() => assertMove('planning', 'planned')).not.toThrow();
  });
});
