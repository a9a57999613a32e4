CREATE TABLE `oauth_clients` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`service_provider` text NOT NULL,
	`name` text,
	`http_url` text NOT NULL,
	`api_url` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `oauth_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`oauth_client_id` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`oauth_client_id`) REFERENCES `oauth_clients`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `registry_module_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`module_id` text NOT NULL,
	`version` text NOT NULL,
	`status` text NOT NULL,
	`source` text NOT NULL,
	`upload_id` text NOT NULL,
	`details` text,
	`archive` blob,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`module_id`) REFERENCES `registry_modules`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `registry_module_versions_upload_id_unique` ON `registry_module_versions` (`upload_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `registry_module_versions_version` ON `registry_module_versions` (`module_id`,`version`);--> statement-breakpoint
CREATE TABLE `registry_modules` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`registry_name` text NOT NULL,
	`namespace` text NOT NULL,
	`name` text NOT NULL,
	`provider` text NOT NULL,
	`status` text NOT NULL,
	`no_code` integer DEFAULT false NOT NULL,
	`vcs_repo` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `registry_modules_address` ON `registry_modules` (`organization_id`,`registry_name`,`namespace`,`name`,`provider`);--> statement-breakpoint
CREATE INDEX `registry_modules_list` ON `registry_modules` (`organization_id`,`name`,`id`);