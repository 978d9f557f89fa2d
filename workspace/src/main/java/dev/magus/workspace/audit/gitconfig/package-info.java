/**
 * git's config files judged by meaning rather than by bytes: the policy's
 * {@link dev.magus.policy.git.GitConfigParser} (the one parser of git config in magus, also
 * behind the policy's git indirections) reads sections, subsections and keys the way git
 * does, {@link GitConfigKeys} holds the one list
 * of which keys a run may leave as it set them and which make a later git run a program, and
 * {@link ConfigJudge} turns a before and an after text into the after text with every
 * changed key that is not harmless put back, the rest kept byte for byte. Pure: no
 * filesystem.
 */
package dev.magus.workspace.audit.gitconfig;
