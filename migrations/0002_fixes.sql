CREATE TABLE `agent_pool_workspaces` (
	`pool_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`kind` text NOT NULL,
	PRIMARY KEY(`pool_id`, `kind`, `workspace_id`),
	FOREIGN KEY (`pool_id`) REFERENCES `agent_pools`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `agent_pool_workspaces_ws` ON `agent_pool_workspaces` (`workspace_id`);--> statement-breakpoint
ALTER TABLE `team_workspaces` ADD `custom_permissions` text;