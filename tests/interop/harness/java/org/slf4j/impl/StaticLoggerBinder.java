package org.slf4j.impl;

import org.slf4j.ILoggerFactory;
import org.slf4j.helpers.NOPLoggerFactory;
import org.slf4j.spi.LoggerFactoryBinder;

/** slf4j 1.7 binding that drops every log line, so the driver's stderr stays readable. */
public class StaticLoggerBinder implements LoggerFactoryBinder {
  public static String REQUESTED_API_VERSION = "1.7.30";
  private static final StaticLoggerBinder INSTANCE = new StaticLoggerBinder();
  private final ILoggerFactory nop = new NOPLoggerFactory();

  public static StaticLoggerBinder getSingleton() {
    return INSTANCE;
  }

  @Override
  public ILoggerFactory getLoggerFactory() {
    return nop;
  }

  @Override
  public String getLoggerFactoryClassStr() {
    return NOPLoggerFactory.class.getName();
  }
}
