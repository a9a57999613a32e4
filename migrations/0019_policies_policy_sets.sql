CREATE TABLE `policies` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`query` text,
	`description` text,
	`enforcement_level` text NOT NULL,
	`source` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `policies_organization_name` ON `policies` (`organization_id`,`name`);--> statement-breakpoint
CREATE TABLE `policy_set_policies` (
	`policy_set_id` text NOT NULL,
	`policy_id` text NOT NULL,
	PRIMARY KEY(`policy_set_id`, `policy_id`),
	FOREIGN KEY (`policy_set_id`) REFERENCES `policy_sets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`policy_id`) REFERENCES `policies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `policy_set_policies_policy` ON `policy_set_policies` (`policy_id`);--> statement-breakpoint
CREATE TABLE `policy_set_projects` (
	`policy_set_id` text NOT NULL,
	`project_id` text NOT NULL,
	PRIMARY KEY(`policy_set_id`, `project_id`),
	FOREIGN KEY (`policy_set_id`) REFERENCES `policy_sets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `policy_set_projects_project` ON `policy_set_projects` (`project_id`);--> statement-breakpoint
CREATE TABLE `policy_set_workspaces` (
	`policy_set_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`excluded` integer NOT NULL,
	PRIMARY KEY(`policy_set_id`, `workspace_id`, `excluded`),
	FOREIGN KEY (`policy_set_id`) REFERENCES `policy_sets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `policy_set_workspaces_workspace` ON `policy_set_workspaces` (`workspace_id`);--> statement-breakpoint
CREATE TABLE `policy_sets` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`kind` text NOT NULL,
	`global` integer NOT NULL,
	`overridable` integer NOT NULL,
	`agent_enabled` integer NOT NULL,
	`policy_tool_version` text,
	`policies_path` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `policy_sets_organization_name` ON `policy_sets` (`organization_id`,`name`);