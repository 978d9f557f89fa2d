/** Host platforms and the environment baseline each one keeps without passthrough. */
package dev.magus.env.platform;
