package dev.cosid.benchmarks;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import javax.sql.DataSource;

/** Counts the statements a store sends: each execution is one round trip to the database. */
final class CountingDataSource implements DataSource {

    final AtomicLong executions = new AtomicLong();
    private final DataSource delegate;

    CountingDataSource(DataSource delegate) {
        this.delegate = delegate;
    }

    private Object wrap(Object target, Class<?> type) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getName().startsWith("execute")) {
                executions.incrementAndGet();
            }
            try {
                Object result = method.invoke(target, args);
                if (result instanceof Statement && method.getReturnType().isInterface()) {
                    return wrap(result, method.getReturnType());
                }
                return result;
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler);
    }

    @Override
    public Connection getConnection() throws SQLException {
        return (Connection) wrap(delegate.getConnection(), Connection.class);
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return (Connection) wrap(delegate.getConnection(username, password), Connection.class);
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return delegate.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        delegate.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        delegate.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return delegate.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return delegate.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return delegate.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return delegate.isWrapperFor(iface);
    }
}
