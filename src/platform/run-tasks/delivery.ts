import { createHmac } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { isoTimestamp } from '../../core/clock.js';
import { ApiError, conflict, notFound, unprocessable } from '../../core/errors.js';
import { safeEqual, sha256Hex } from '../../core/crypto.js';
import { newId, secretToken, uuid } from '../../core/ids.js';
import { storeAtRest } from '../../store/entry-barrier.js';
import { sqliteOf, type Db } from '../../store/store.js';
import { runTaskDeliveries, type RunTaskStage } from '../../store/tables.js';
import { desc, eq } from 'drizzle-orm';
import * as organizationsRepo from '../organizations/repo.js';
import { findWorkspaceTask } from './repo.js';
import { findWorkspace } from '../workspaces/repo.js';
import { STAGES } from './input.js';
import { findRunTask } from './repo.js';

/** The header a receiver verifies: hex HMAC-SHA512 of the exact body, keyed with the task's `hmac-key`. */
export const SIGNATURE_HEADER = 'X-TFC-Task-Signature';
const TIMEOUT_MS = 10_000;
const EXCERPT_CHARS = 2_000;

/** What the caller of the trigger may pin; everything else is made up the way a real run would have it. */
export interface TriggerOptions {
  stage?: string;
  runId?: string;
  runMessage?: string;
  runCreatedBy?: string;
  isSpeculative?: boolean;
  configurationVersionId?: string;
  /** A real run's task result: its id, the access token its callback must carry, its plan. */
  taskResultId?: string;
  accessToken?: string;
  planId?: string;
}

export interface DeliveryResult {
  id: string;
  'workspace-task-id': string;
  stage: RunTaskStage;
  url: string;
  signed: boolean;
  'response-status': number | null;
  'response-body': string | null;
  error: string | null;
  payload: Record<string, unknown>;
}

function signature(key: string, body: string): string {
  return createHmac('sha512', key).update(body).digest('hex');
}

/**
 * Builds the stage payload a run sends to a task's URL (payload version 1; since 2023-05-25 the
 * configuration version and working directory travel at every stage), posts it — signed when the
 * task has an HMAC key — and records what the receiver answered. The key itself is never part of
 * the result or the record.
 */
export async function deliverRunTask(
  db: Db,
  clock: Clock,
  workspaceTaskId: string,
  origin: string,
  options: TriggerOptions,
): Promise<DeliveryResult> {
  const attachment = findWorkspaceTask(db, workspaceTaskId);
  const task = attachment && findRunTask(db, attachment.taskId);
  const workspace = attachment && findWorkspace(db, attachment.workspaceId);
  const organization = workspace && organizationsRepo.findOrganizationById(db, workspace.organizationId);
  if (!attachment || !task || !workspace || !organization) throw new ApiError(404, `no workspace run task ${workspaceTaskId}`);
  if (!task.enabled || !attachment.enabled) throw conflict('the run task is disabled, so no run would call it');
  const stage = (options.stage ?? attachment.stages[0] ?? 'post_plan') as RunTaskStage;
  if (!STAGES.includes(stage)) throw new ApiError(400, `stage must be one of ${STAGES.join(', ')}`);
  if (!attachment.stages.includes(stage)) throw new ApiError(400, `the task is attached for ${attachment.stages.join(', ')}, not ${stage}`);

  const runId = options.runId ?? newId('run');
  const configurationVersionId = options.configurationVersionId ?? newId('cv');
  // A trigger without a run answers at a callback of its own delivery (answerTriggeredDelivery).
  const triggered = options.taskResultId === undefined;
  const taskResultId = options.taskResultId ?? newId('taskrs');
  // A run's callback names its task result; a trigger's, a UUID of its own (as the documented example has it).
  const callbackId = options.taskResultId ?? uuid();
  const accessToken = options.accessToken ?? secretToken(24);
  const api = `${origin}/api/v2`;
  const app = `${origin}/app/${encodeURIComponent(organization.name)}/workspaces/${encodeURIComponent(workspace.name)}`;
  const vcs = workspace.vcsRepo;
  const payload: Record<string, unknown> = {
    payload_version: 1,
    stage,
    access_token: accessToken,
    capabilities: { outcomes: true },
    configuration_version_download_url: `${api}/configuration-versions/${configurationVersionId}/download`,
    configuration_version_id: configurationVersionId,
    is_speculative: options.isSpeculative ?? false,
    organization_name: organization.name,
    ...(stage === 'post_plan' || stage === 'pre_apply'
      ? { plan_json_api_url: `${api}/plans/${options.planId ?? newId('plan')}/json-output` }
      : {}),
    run_app_url: `${app}/runs/${runId}`,
    run_created_at: isoTimestamp(clock.now()),
    run_created_by: options.runCreatedBy ?? 'understudy',
    run_id: runId,
    run_message: options.runMessage ?? 'Triggered via understudy',
    task_result_callback_url: `${api}/task-results/${callbackId}/callback`,
    task_result_enforcement_level: attachment.enforcementLevel,
    task_result_id: taskResultId,
    vcs_branch: vcs ? vcs.branch || 'main' : null,
    vcs_commit_url: null,
    vcs_pull_request_url: null,
    vcs_repo_url: vcs ? `https://github.com/${vcs.identifier}` : null,
    workspace_app_url: app,
    workspace_id: workspace.id,
    workspace_name: workspace.name,
    workspace_working_directory: workspace.workingDirectory ?? '',
  };

  // Recorded before the POST: a receiver may call back before it answers.
  const id = newId('rtdel');
  db.insert(runTaskDeliveries)
    .values({
      id,
      workspaceTaskId,
      stage,
      runId,
      url: task.url,
      signed: Boolean(task.hmacKey),
      createdAt: clock.now(),
      ...(triggered ? { callbackId, tokenHash: sha256Hex(accessToken) } : {}),
    })
    .run();
  const body = JSON.stringify(payload);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'understudy-run-tasks' };
  // Kept sealed (service.ts); opened only here, to sign.
  const hmacKey = task.hmacKey ? storeAtRest(sqliteOf(db)).openMarked(task.hmacKey) : null;
  if (hmacKey) headers[SIGNATURE_HEADER] = signature(hmacKey, body);
  let status: number | null = null;
  let excerpt: string | null = null;
  let error: string | null = null;
  try {
    const response = await fetch(task.url, { method: 'POST', headers, body, signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'manual' });
    status = response.status;
    excerpt = (await response.text()).slice(0, EXCERPT_CHARS);
  } catch (failure) {
    error =
      failure instanceof Error ? `${failure.name}: ${(failure.cause as Error | undefined)?.message ?? failure.message}` : String(failure);
  }
  db.update(runTaskDeliveries).set({ responseStatus: status, responseExcerpt: excerpt, error }).where(eq(runTaskDeliveries.id, id)).run();
  return {
    id,
    'workspace-task-id': workspaceTaskId,
    stage,
    url: task.url,
    signed: Boolean(hmacKey),
    'response-status': status,
    'response-body': excerpt,
    error,
    payload,
  };
}

/** What earlier triggers of a workspace run task delivered and what receivers answered, newest first. */
export function listDeliveries(db: Db, workspaceTaskId: string) {
  if (!findWorkspaceTask(db, workspaceTaskId)) throw new ApiError(404, `no workspace run task ${workspaceTaskId}`);
  return db
    .select()
    .from(runTaskDeliveries)
    .where(eq(runTaskDeliveries.workspaceTaskId, workspaceTaskId))
    .orderBy(desc(runTaskDeliveries.createdAt))
    .all();
}

/**
 * A task service's verdict on a triggered delivery, at the callback URL its payload named and with
 * its access token; false when no triggered delivery has that callback id (a run's task result
 * may). Kept on the delivery, which `/_emulator/run-tasks/:id/deliveries` shows.
 */
export function answerTriggeredDelivery(
  db: Db,
  clock: Clock,
  callbackId: string,
  token: string,
  answer: { status: string; message: string | null },
): boolean {
  const delivery = db.select().from(runTaskDeliveries).where(eq(runTaskDeliveries.callbackId, callbackId)).get();
  if (!delivery) return false;
  if (!delivery.tokenHash || !safeEqual(sha256Hex(token), delivery.tokenHash))
    throw notFound('no such task result, or the access token is not its own');
  if (!['passed', 'failed', 'running'].includes(answer.status))
    throw unprocessable('status must be passed, failed or running', '/data/attributes/status');
  if (delivery.callbackStatus === 'passed' || delivery.callbackStatus === 'failed')
    throw unprocessable(`the task result is already ${delivery.callbackStatus}`, '/data/attributes/status');
  db.update(runTaskDeliveries)
    .set({ callbackStatus: answer.status, callbackMessage: answer.message, callbackAt: clock.now() })
    .where(eq(runTaskDeliveries.id, delivery.id))
    .run();
  return true;
}
