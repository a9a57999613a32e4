CREATE TABLE `gpg_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`key_id` text NOT NULL,
	`ascii_armor` text NOT NULL,
	`source` text NOT NULL,
	`source_url` text,
	`trust_signature` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `gpg_keys_key` ON `gpg_keys` (`organization_id`,`key_id`);--> statement-breakpoint
CREATE TABLE `registry_provider_platforms` (
	`id` text PRIMARY KEY NOT NULL,
	`version_id` text NOT NULL,
	`os` text NOT NULL,
	`arch` text NOT NULL,
	`filename` text NOT NULL,
	`shasum` text NOT NULL,
	`binary` blob,
	`binary_upload_id` text NOT NULL,
	`binary_upload_sealed` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`version_id`) REFERENCES `registry_provider_versions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `registry_provider_platforms_binary_upload_id_unique` ON `registry_provider_platforms` (`binary_upload_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `registry_provider_platforms_platform` ON `registry_provider_platforms` (`version_id`,`os`,`arch`);--> statement-breakpoint
CREATE TABLE `registry_provider_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`provider_id` text NOT NULL,
	`version` text NOT NULL,
	`key_id` text NOT NULL,
	`protocols` text NOT NULL,
	`shasums` blob,
	`shasums_sig` blob,
	`shasums_upload_id` text NOT NULL,
	`shasums_upload_sealed` text NOT NULL,
	`shasums_sig_upload_id` text NOT NULL,
	`shasums_sig_upload_sealed` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`provider_id`) REFERENCES `registry_providers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `registry_provider_versions_shasums_upload_id_unique` ON `registry_provider_versions` (`shasums_upload_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `registry_provider_versions_shasums_sig_upload_id_unique` ON `registry_provider_versions` (`shasums_sig_upload_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `registry_provider_versions_version` ON `registry_provider_versions` (`provider_id`,`version`);--> statement-breakpoint
CREATE TABLE `registry_providers` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`registry_name` text NOT NULL,
	`namespace` text NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `registry_providers_address` ON `registry_providers` (`organization_id`,`registry_name`,`namespace`,`name`);--> statement-breakpoint
CREATE INDEX `registry_providers_list` ON `registry_providers` (`organization_id`,`name`,`id`);