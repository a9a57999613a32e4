import type { Runtime } from '../runtime.js';
import { AdminService } from './admin/service.js';
import { AgentPoolService } from './agent-pools/service.js';
import { MembershipService } from './memberships/service.js';
import { OAuthClientService } from './oauth-clients/service.js';
import { OrganizationService } from './organizations/service.js';
import { ProjectService } from './projects/service.js';
import { DownloadLinks } from './registry/links.js';
import { RegistryProtocol } from './registry/protocol.js';
import { RegistryService } from './registry/service.js';
import { VcsPublisher } from './registry/vcs.js';
import { RemoteStateService } from './remote-state/service.js';
import { RunTaskService } from './run-tasks/service.js';
import { SshKeyService } from './ssh-keys/service.js';
import { StateVersionService } from './state-versions/service.js';
import { SubscriptionService } from './subscriptions/service.js';
import { TagService } from './tags/service.js';
import { TeamAccessService } from './team-access/service.js';
import { TeamProjectService } from './team-projects/service.js';
import { TeamService } from './teams/service.js';
import { TokenService } from './tokens/service.js';
import { ToolVersionService } from './tool-versions/service.js';
import { UserService } from './users/service.js';
import { VariableService } from './variables/service.js';
import { VariableSetService } from './variable-sets/service.js';
import { WorkspaceTaskService } from './workspace-tasks/service.js';
import { WorkspaceService } from './workspaces/service.js';

/** Every platform service, made once per server; routes, the control plane and the seed all use these. */
export interface PlatformServices {
  readonly admin: AdminService;
  readonly agentPools: AgentPoolService;
  readonly memberships: MembershipService;
  readonly oauthClients: OAuthClientService;
  readonly organizations: OrganizationService;
  readonly projects: ProjectService;
  readonly registry: RegistryService;
  readonly registryProtocol: RegistryProtocol;
  readonly registryDownloads: DownloadLinks;
  readonly vcs: VcsPublisher;
  readonly remoteState: RemoteStateService;
  readonly runTasks: RunTaskService;
  readonly sshKeys: SshKeyService;
  readonly stateVersions: StateVersionService;
  readonly subscriptions: SubscriptionService;
  readonly tags: TagService;
  readonly teamAccess: TeamAccessService;
  readonly teamProjects: TeamProjectService;
  readonly teams: TeamService;
  readonly tokens: TokenService;
  readonly toolVersions: ToolVersionService;
  readonly users: UserService;
  readonly variables: VariableService;
  readonly variableSets: VariableSetService;
  readonly workspaceTasks: WorkspaceTaskService;
  readonly workspaces: WorkspaceService;
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
  const tags = new TagService(clock);
  const organizations = new OrganizationService(db, clock);
  const users = new UserService(db, clock);
  const workspaces = new WorkspaceService(db, clock, dialect, edition, tags);
  const projects = new ProjectService(db, clock);
  const oauthClients = new OAuthClientService(db, clock, organizations);
  const registry = new RegistryService(db, clock, edition, organizations);
  const services: PlatformServices = {
    admin: new AdminService(runtime),
    agentPools: new AgentPoolService(db, clock, organizations),
    memberships: new MembershipService(db, clock, dialect, users),
    oauthClients,
    organizations,
    projects,
    registry,
    registryProtocol: new RegistryProtocol(db, organizations),
    registryDownloads: new DownloadLinks(clock),
    vcs: new VcsPublisher(db, clock, registry, oauthClients),
    remoteState: new RemoteStateService(db, workspaces),
    runTasks: new RunTaskService(db, clock, dialect),
    sshKeys: new SshKeyService(db, clock, organizations),
    stateVersions: new StateVersionService(db, clock, workspaces),
    subscriptions: new SubscriptionService(db, clock),
    tags,
    teamAccess: new TeamAccessService(db, clock, workspaces),
    teamProjects: new TeamProjectService(db, clock, projects),
    teams: new TeamService(db, clock),
    tokens: new TokenService(db, clock),
    toolVersions: new ToolVersionService(db, clock),
    users,
    variables: new VariableService(db, clock, workspaces),
    variableSets: new VariableSetService(db, clock, workspaces),
    workspaceTasks: new WorkspaceTaskService(db, clock, workspaces),
    workspaces,
  };
  return { ...runtime, services };
}
