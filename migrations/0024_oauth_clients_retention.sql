CREATE TABLE `oauth_client_projects` (
	`oauth_client_id` text NOT NULL,
	`project_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`oauth_client_id`, `project_id`),
	FOREIGN KEY (`oauth_client_id`) REFERENCES `oauth_clients`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `oauth_client_projects_project` ON `oauth_client_projects` (`project_id`);--> statement-breakpoint
ALTER TABLE `organizations` ADD `data_retention_policy` text;--> statement-breakpoint
ALTER TABLE `oauth_clients` ADD `key` text;--> statement-breakpoint
ALTER TABLE `oauth_clients` ADD `rsa_public_key` text;--> statement-breakpoint
ALTER TABLE `oauth_clients` ADD `has_secret` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `oauth_clients` ADD `organization_scoped` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `oauth_clients` ADD `agent_pool_id` text REFERENCES agent_pools(id) ON DELETE set null;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `data_retention_policy` text;