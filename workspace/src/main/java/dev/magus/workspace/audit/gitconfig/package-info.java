/**
 * git's config files judged by meaning rather than by bytes: {@link GitConfigParser} reads
 * sections, subsections and keys the way git does, {@link GitConfigKeys} holds the one list
 * of which keys a run may leave as it set them and which make a later git run a program, and
 * {@link ConfigJudge} turns a before and an after text into the after text with every
 * changed key that is not harmless put back, the rest kept byte for byte. Pure: no
 * filesystem.
 */
package dev.magus.workspace.audit.gitconfig;
