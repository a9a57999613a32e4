import type { Runtime } from '../runtime.js';
import { AdminService } from './admin-settings/service.js';
import { AgentPoolService } from './agent-pools/service.js';
import { AgentService } from './agents/service.js';
import { DataRetentionService } from './data-retention/service.js';
import { RetentionSweep } from './data-retention/sweep.js';
import { editionAllows } from '../core/edition.js';
import { MembershipService } from './memberships/service.js';
import { MembershipViews, teamMembershipsInclude } from './memberships/view.js';
import { OAuthClientService } from './oauth-clients/service.js';
import { OrganizationService } from './organizations/service.js';
import { ProjectService } from './projects/service.js';
import { storeAtRest } from '../store/entry-barrier.js';
import { DownloadLinks } from './registry/links.js';
import { RegistryProtocol } from './registry/protocol.js';
import { NoCodeService } from './registry/no-code.js';
import { RegistryService } from './registry/service.js';
import { VcsPublisher } from './registry/vcs.js';
import { GpgKeyService } from './registry-providers/gpg-keys.js';
import { ProviderProtocol } from './registry-providers/protocol.js';
import { RegistryProviderService } from './registry-providers/service.js';
import { RemoteStateService } from './remote-state/service.js';
import { ReservedTagKeyService } from './reserved-tag-keys/service.js';
import { RunTaskService } from './run-tasks/service.js';
import { SshKeyService } from './ssh-keys/service.js';
import { PolicyService } from './policies/service.js';
import { PolicyCheckService } from './policies/checks.js';
import { PolicyEvaluationService } from './policies/evaluations.js';
import { SetEvaluator } from './policies/set-evaluation.js';
import { PolicySetParameterService } from './policies/parameters.js';
import { PolicySetVersionService } from './policies/versions.js';
import { PlanExportService } from './policies/plan-exports.js';
import { PolicyToolVersionService } from './tool-versions/policy-tools.js';
import { StateVersionService } from './state-versions/service.js';
import { SubscriptionService } from './subscriptions/service.js';
import { TagService } from './tags/service.js';
import { TagBindingService } from './tag-bindings/service.js';
import { effectiveTagBindingsInclude } from './tag-bindings/view.js';
import { TeamAccessService } from './team-access/service.js';
import { TeamProjectService } from './team-projects/service.js';
import { TeamService } from './teams/service.js';
import { teamUsersInclude, type TeamPage } from './teams/view.js';
import { findMembership, findMembershipById } from './memberships/repo.js';
import { TokenService } from './tokens/service.js';
import { ToolVersionService } from './tool-versions/service.js';
import { UserService } from './users/service.js';
import { variableIdsOf } from './variables/repo.js';
import { VariableService } from './variables/service.js';
import { VariableSetService } from './variable-sets/service.js';
import { WorkspaceTaskService } from './workspace-tasks/service.js';
import { WorkspaceService } from './workspaces/service.js';
import { AuditTrailService } from './audit-trail/service.js';
import { AuditConfigurationService } from './audit-configuration/service.js';
import { VariableSetViews } from './variable-sets/view.js';
import { ConfigurationVersionService } from './configuration-versions/service.js';
import { LogBook } from './runs/logs.js';
import { FINAL_STATUSES } from './runs/states.js';
import { RunEngine } from './runs/engine.js';
import { QueryService } from './queries/service.js';
import { RunService } from './runs/service.js';
import { RunViews } from './runs/view.js';
import { RunActivityService } from './runs/activity.js';
import { RunTriggerService } from './runs/triggers.js';
import { SiteAdminService } from './site-admin/service.js';
import { TaskStageService } from './task-stages/service.js';
import { TaskStageRunner } from './task-stages/runner.js';
import { WorkspaceLocks } from './workspaces/locking.js';
import { WorkspaceViews, workspaceOwnIncludes } from './workspaces/view.js';
import { stateVersionWorkspaceParts } from './state-versions/view.js';
import { latestIsPending } from './state-versions/repo.js';
import { defaultProjectInclude, projectWorkspaceInclude, ProjectViews } from './projects/view.js';
import { insertDefaultProject } from './projects/repo.js';
import { requireAgentPoolOf } from './agent-pools/rules.js';
import { IncludeRegistry } from './jsonapi/include.js';
import type { OrganizationPage } from './organizations/view.js';
import { WorkloadIdentityHook } from './workload-identity/hook.js';
import { NotificationDispatcher } from './notifications/delivery.js';
import { NotificationService } from './notifications/service.js';
import { RateLimiter } from './rate-limit.js';
import { SigningKeys } from './workload-identity/signing-keys.js';
import { StateDownloadLinks } from './state-versions/links.js';

/** Every platform service, made once per server; routes, the control plane and the seed all use these. */
export interface PlatformServices {
  readonly admin: AdminService;
  readonly agentPools: AgentPoolService;
  /** Agent tokens and the agents registered with them. */
  readonly agents: AgentService;
  /** Data retention policies of organizations and workspaces (self-hosted edition). */
  readonly dataRetention: DataRetentionService;
  readonly memberships: MembershipService;
  readonly membershipViews: MembershipViews;
  readonly oauthClients: OAuthClientService;
  readonly organizations: OrganizationService;
  readonly organizationIncludes: IncludeRegistry<OrganizationPage>;
  readonly projects: ProjectService;
  readonly projectViews: ProjectViews;
  readonly registry: RegistryService;
  readonly noCode: NoCodeService;
  readonly registryProtocol: RegistryProtocol;
  readonly registryDownloads: DownloadLinks;
  readonly vcs: VcsPublisher;
  readonly registryProviders: RegistryProviderService;
  readonly gpgKeys: GpgKeyService;
  readonly providerProtocol: ProviderProtocol;
  readonly remoteState: RemoteStateService;
  readonly reservedTagKeys: ReservedTagKeyService;
  readonly runTasks: RunTaskService;
  readonly sshKeys: SshKeyService;
  /** Policies and policy sets (issue 29). */
  readonly policies: PolicyService;
  readonly policyChecks: PolicyCheckService;
  readonly policyEvaluations: PolicyEvaluationService;
  readonly policySetParameters: PolicySetParameterService;
  readonly policySetVersions: PolicySetVersionService;
  readonly planExports: PlanExportService;
  readonly stateVersions: StateVersionService;
  readonly subscriptions: SubscriptionService;
  readonly tags: TagService;
  readonly tagBindings: TagBindingService;
  readonly teamAccess: TeamAccessService;
  readonly teamProjects: TeamProjectService;
  readonly teams: TeamService;
  readonly teamIncludes: IncludeRegistry<TeamPage>;
  readonly tokens: TokenService;
  readonly toolVersions: ToolVersionService;
  /** Admin OPA and Sentinel versions (issue 29). */
  readonly opaVersions: PolicyToolVersionService;
  readonly sentinelVersions: PolicyToolVersionService;
  readonly users: UserService;
  readonly variables: VariableService;
  readonly variableSets: VariableSetService;
  readonly workspaceTasks: WorkspaceTaskService;
  readonly workspaces: WorkspaceService;
  readonly auditTrail: AuditTrailService;
  /** An organization's audit configuration (hosted edition). */
  readonly auditConfiguration: AuditConfigurationService;
  readonly variableSetViews: VariableSetViews;
  readonly configurationVersions: ConfigurationVersionService;
  readonly runs: RunService;
  /** Runs as wire objects, with their includes. */
  readonly runViews: RunViews;
  readonly runActivity: RunActivityService;
  readonly runTriggers: RunTriggerService;
  /** The self-hosted edition's installation-wide administration of organizations and workspaces. */
  readonly siteAdmin: SiteAdminService;
  readonly runLogs: LogBook;
  /** Query runs (`/api/v2/queries`), simulated. */
  readonly queries: QueryService;
  readonly taskStages: TaskStageService;
  readonly workspaceLocks: WorkspaceLocks;
  /** Workspaces as wire objects, with the parts and includes other domains own. */
  readonly workspaceViews: WorkspaceViews;
  /** Notification configurations and the dispatcher that delivers run notifications. */
  readonly notifications: NotificationService;
  /** The API rate limit's counts, shared by every tree whose conventions add its hook. */
  readonly rateLimiter: RateLimiter;
  /** The workload identity signing keys (`/.well-known/jwks`, the admin rotate and trim actions, minting). */
  readonly signingKeys: SigningKeys;
  /** State download links: the API signs them, the object routes verify them, with this server's key. */
  readonly stateLinks: StateDownloadLinks;
}

/** What platform routes, the control plane and the seed are built from: the runtime and its services. */
export interface PlatformContext extends Runtime {
  readonly services: PlatformServices;
}

/**
 * The one door into the platform: each service is made here once, with the edition, dialect and
 * clock passed in (no service picks a default), and services that need another get this one.
 */
export function buildPlatformContext(runtime: Runtime): PlatformContext {
  const { db } = runtime.store;
  const { clock } = runtime;
  const { dialect, edition } = runtime.config;
  const tags = new TagService(db, clock);
  const tagBindings = new TagBindingService(db, clock);
  const organizations = new OrganizationService(db, clock, { requireAgentPool: requireAgentPoolOf, onCreate: insertDefaultProject });
  const users = new UserService(db, clock);
  const workspaces = new WorkspaceService(db, clock, dialect, edition, tags, requireAgentPoolOf, tagBindings);
  const projects = new ProjectService(db, clock, tagBindings);
  const oauthClients = new OAuthClientService(db, clock, organizations);
  const atRest = storeAtRest(runtime.store.sqlite);
  const registry = new RegistryService(db, clock, edition, organizations, atRest);
  const gpgKeys = new GpgKeyService(db, clock);
  const agentPools = new AgentPoolService(db, clock, organizations);
  const stateVersions = new StateVersionService(db, clock, workspaces);
  const configurationVersions = new ConfigurationVersionService(db, clock, workspaces, [...FINAL_STATUSES]);
  const runLogs = new LogBook(db);
  const variableSets = new VariableSetService(db, clock, workspaces);
  const workspaceLocks = new WorkspaceLocks(db, clock, workspaces, (workspaceId) => latestIsPending(db, workspaceId));
  const engine = new RunEngine(db, clock, runtime.scheduler, runtime.config, runtime.log, runLogs, {
    configurationVersions,
    stateVersions,
    variableSets,
    workspaceLocks,
  });
  const runs = new RunService(db, clock, workspaces, engine);
  // Data retention policies applied (self-hosted only: the hosted edition has no policies).
  const retentionSweep = editionAllows.dataRetentionPolicies(edition)
    ? new RetentionSweep(db, clock, runtime.scheduler, {
        expireStateVersion: (id) => stateVersions.expireBackingData(id),
        expireConfigurationVersion: (id) => configurationVersions.expireBackingData(id),
        protectedConfigurationVersions: (workspaceId) => configurationVersions.protectedVersions(workspaceId),
      })
    : null;
  if (retentionSweep) runtime.scheduler.register(retentionSweep.source);
  configurationVersions.autoQueue = (version, origin) => runs.autoQueue(version, origin);
  const taskStageRunner = new TaskStageRunner(db, clock, runtime.scheduler, runtime.log);
  engine.useStages(taskStageRunner);
  const signingKeys = new SigningKeys(runtime);
  runtime.scheduler.register(signingKeys);
  engine.addPhaseHook(new WorkloadIdentityHook(runtime, signingKeys));
  // Policy checks come after the post-plan task stage (the order checks are added in).
  const setEvaluator = new SetEvaluator(db);
  const policyChecks = new PolicyCheckService(db, clock, runs, setEvaluator);
  // OPA and agent-enabled sentinel sets are evaluated in the post-plan task stage instead.
  const policyEvaluations = new PolicyEvaluationService(db, clock, setEvaluator);
  taskStageRunner.policies = policyEvaluations;
  const policies = new PolicyService(db, clock, organizations);
  engine.addCheck(policyChecks.runCheck());
  engine.onApplied = (run) => {
    configurationVersions.applied(run.configurationVersionId);
    runs.triggered(run);
  };
  const teams = new TeamService(db, clock, {
    byId: (id) => findMembershipById(db, id),
    of: (organizationId, userId) => findMembership(db, organizationId, userId),
  });
  const stateLinks = new StateDownloadLinks(clock);
  const stateParts = stateVersionWorkspaceParts(db, stateLinks);
  const runActivity = new RunActivityService(db, clock, runs);
  const taskStages = new TaskStageService(db, taskStageRunner);
  // Runs render their workspace and workspaces their current run: each view reaches the other once both are made.
  const runViews: RunViews = new RunViews({
    db,
    clock,
    dialect,
    edition,
    workspaces,
    runLogs,
    taskStages,
    policyChecks,
    workspaceViews: (): WorkspaceViews => workspaceViews,
  });
  const workspaceViews: WorkspaceViews = new WorkspaceViews(db, {
    outputIds: stateParts.outputIds,
    variableIds: (ids) => variableIdsOf(db, ids),
    tagBindingIds: (holders) => tagBindings.idsOf(holders),
    includes: {
      ...workspaceOwnIncludes(db, teams),
      ...stateParts.includes,
      project: projectWorkspaceInclude(db),
      effective_tag_bindings: effectiveTagBindingsInclude(tagBindings),
      ...runViews.workspaceIncludes(),
    },
  });
  const notifications = new NotificationService(
    db,
    clock,
    atRest,
    workspaces,
    new NotificationDispatcher(db, clock, atRest, runtime.log, {
      timeoutMs: runtime.config.notificationTimeoutMs,
      originOf: (runId) => engine.origins.get(runId),
      fallbackOrigin: `http://${runtime.config.host}:${runtime.config.port}`,
    }),
  );
  const admin = new AdminService(runtime);
  const services: PlatformServices = {
    admin,
    agentPools,
    agents: new AgentService(db, clock, agentPools, (poolId) => engine.agents.offer(poolId)),
    dataRetention: new DataRetentionService(db, organizations, workspaces, () => retentionSweep?.changed()),
    memberships: new MembershipService(db, clock, dialect, users),
    membershipViews: new MembershipViews(db, teams),
    oauthClients,
    organizations,
    organizationIncludes: new IncludeRegistry<OrganizationPage>({ 'default-project': defaultProjectInclude(db) }),
    projects,
    projectViews: new ProjectViews(projects, tagBindings),
    registry,
    noCode: new NoCodeService(db, clock, registry),
    registryProtocol: new RegistryProtocol(db, organizations),
    registryDownloads: new DownloadLinks(clock),
    vcs: new VcsPublisher(db, clock, registry, oauthClients),
    registryProviders: new RegistryProviderService(db, clock, organizations, atRest),
    gpgKeys,
    providerProtocol: new ProviderProtocol(db, organizations, gpgKeys, new DownloadLinks(clock)),
    remoteState: new RemoteStateService(db, workspaces),
    reservedTagKeys: new ReservedTagKeyService(db, clock, organizations),
    runTasks: new RunTaskService(db, clock, dialect, atRest),
    sshKeys: new SshKeyService(db, clock, organizations),
    policies,
    policySetParameters: new PolicySetParameterService(db, clock, atRest, policies),
    policySetVersions: new PolicySetVersionService(db, clock, policies),
    planExports: new PlanExportService(db, clock, runs, workspaces),
    policyChecks,
    policyEvaluations,
    stateVersions,
    subscriptions: new SubscriptionService(db, clock),
    tags,
    tagBindings,
    teamAccess: new TeamAccessService(db, clock, workspaces),
    teamProjects: new TeamProjectService(db, clock, projects),
    teams,
    teamIncludes: new IncludeRegistry<TeamPage>({ users: teamUsersInclude, 'organization-memberships': teamMembershipsInclude(db) }),
    tokens: new TokenService(db, clock),
    toolVersions: new ToolVersionService(db, clock),
    opaVersions: new PolicyToolVersionService(db, clock, 'opa'),
    sentinelVersions: new PolicyToolVersionService(db, clock, 'sentinel'),
    users,
    variables: new VariableService(db, clock, workspaces),
    variableSets,
    workspaceTasks: new WorkspaceTaskService(db, clock, workspaces),
    workspaces,
    configurationVersions,
    runs,
    runViews,
    runActivity,
    runTriggers: new RunTriggerService(db, clock, workspaces),
    siteAdmin: new SiteAdminService(db, organizations, workspaces),
    runLogs,
    queries: new QueryService(
      db,
      clock,
      runtime.scheduler,
      workspaces,
      {
        configurationVersions,
        stateVersions,
        logs: runLogs,
        progressionOf: (workspaceId) => engine.progressionOf(workspaceId),
      },
      runtime.log,
    ),
    taskStages,
    workspaceLocks,
    workspaceViews,
    auditTrail: new AuditTrailService(db, clock),
    auditConfiguration: new AuditConfigurationService(db, clock, organizations),
    variableSetViews: new VariableSetViews(db),
    notifications,
    rateLimiter: new RateLimiter(runtime, () => admin.limitPolicy()),
    signingKeys,
    stateLinks,
  };
  workspaceLocks.onUnlocked = (workspaceId) => engine.pump(workspaceId);
  if (retentionSweep) {
    // What a policy reads: new current versions, restores, and a run's end (its configuration version is no longer in use).
    stateVersions.backingDataChanged = (workspaceId) => retentionSweep.changedIn(workspaceId);
    configurationVersions.backingDataChanged = (workspaceId) => retentionSweep.changedIn(workspaceId);
    engine.onTransition((transition) => {
      if (FINAL_STATUSES.has(transition.to)) retentionSweep.changedIn(transition.run.workspaceId);
    });
  }
  // Every committed run status change reaches the notification dispatcher (which returns at once).
  engine.onTransition((transition) => notifications.dispatcher.runTransition(transition));
  return { ...runtime, services };
}
