CREATE TABLE `notification_configurations` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`workspace_id` text,
	`team_id` text,
	`project_id` text,
	`name` text NOT NULL,
	`destination_type` text NOT NULL,
	`enabled` integer NOT NULL,
	`url` text,
	`token_sealed` text,
	`triggers` text NOT NULL,
	`email_addresses` text NOT NULL,
	`email_user_ids` text NOT NULL,
	`delivery_responses` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `notification_configurations_workspace` ON `notification_configurations` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `notification_configurations_team` ON `notification_configurations` (`team_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `notification_configurations_project` ON `notification_configurations` (`project_id`,`created_at`);