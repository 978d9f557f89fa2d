/** Control files: files inside a write grant that another tool later obeys outside any sandbox. */
package dev.magus.policy.control;
