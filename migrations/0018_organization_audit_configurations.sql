CREATE TABLE `organization_audit_configurations` (
	`organization_id` text PRIMARY KEY NOT NULL,
	`configuration` text NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
