package dev.cosid.spring.boot.leadership;

import dev.cosid.coordination.Leadership;
import dev.cosid.coordination.Role;
import dev.cosid.spring.boot.CosIdConfigurationException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Applies {@link LeaderOnly}: wraps each bean with an annotated method in a class proxy whose interceptor runs the
 * method only while this instance leads the method's role, with {@link CosIdLeadership#current()} set, and skips it
 * otherwise. It also makes every role an annotation names known to {@link CosIdLeadership}, which campaigns for it.
 *
 * <p>It must wrap a bean before {@code ScheduledAnnotationBeanPostProcessor} registers the bean's {@code @Scheduled}
 * methods, so that the scheduler calls them through the proxy: Spring moves that post-processor (a merged bean
 * definition post-processor) behind every ordinary one, and this one is ordered just before the lowest precedence
 * as well. A class proxy is used so the scheduler finds the method on the proxy whether or not the bean implements
 * interfaces. On a bean another post-processor proxied already (say, for {@code @Transactional}), the interceptor is
 * put in front of the others: a skipped call opens no transaction, and a fenced check runs inside it.
 *
 * <p>Each annotated method is checked before the bean is used: the role's name, a {@code void} return (a skipped
 * call has no result), and a method a class proxy can intercept (neither private, nor final, nor static); a
 * method a proxy cannot intercept would run on every instance.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * // registered by the auto-configuration when cosid.leadership.enabled=true
 * @Scheduled(fixedDelay = 1_000) @LeaderOnly("billing") public void bill() { ... }
 * }</pre>
 */
public final class LeaderOnlyBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(LeaderOnly.class);

    private final transient Set<Role> roles = ConcurrentHashMap.newKeySet();
    private final transient Set<Class<?>> checked = ConcurrentHashMap.newKeySet();
    private transient volatile Consumer<Role> onRole;

    /** Creates the post-processor; the interceptor finds {@link CosIdLeadership} when first called. */
    public LeaderOnlyBeanPostProcessor() {
        setProxyTargetClass(true);
        setBeforeExistingAdvisors(true);
        setOrder(Ordered.LOWEST_PRECEDENCE - 1);
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        super.setBeanFactory(beanFactory);
        this.advisor = new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, LeaderOnly.class, true),
                new Interceptor(beanFactory.getBeanProvider(CosIdLeadership.class)));
    }

    /** Returns the roles the annotations seen so far name. */
    Set<Role> roles() {
        return Set.copyOf(roles);
    }

    /** Hands every role named so far, and each one named later (by a lazy bean), to the leadership. */
    void announceTo(Consumer<Role> leadership) {
        onRole = leadership;
        roles.forEach(leadership);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> target = AopProxyUtils.ultimateTargetClass(bean);
        if (checked.add(target)) {
            Map<Method, LeaderOnly> annotated = MethodIntrospector.selectMethods(target,
                    (MethodIntrospector.MetadataLookup<LeaderOnly>) method ->
                            AnnotatedElementUtils.findMergedAnnotation(method, LeaderOnly.class));
            annotated.forEach((method, annotation) -> {
                Role role = check(method, annotation);
                if (roles.add(role)) {
                    Consumer<Role> listener = onRole;
                    if (listener != null) {
                        listener.accept(role);
                    }
                }
            });
        }
        return super.postProcessAfterInitialization(bean, beanName);
    }

    private static Role check(Method method, LeaderOnly annotation) {
        String where = "@LeaderOnly on " + method.getDeclaringClass().getName() + "." + method.getName() + "()";
        Role role = LeadershipSettings.role(where, annotation.value());
        int modifiers = method.getModifiers();
        String problem = method.getReturnType() != void.class
                ? "the method returns " + method.getReturnType().getSimpleName() + ", and a skipped call has no result"
                : Modifier.isPrivate(modifiers) ? "the method is private, so no proxy can intercept it and it would "
                        + "run on every instance"
                : Modifier.isFinal(modifiers) ? "the method is final, so no proxy can intercept it and it would run "
                        + "on every instance"
                : Modifier.isStatic(modifiers) ? "the method is static, so no proxy can intercept it and it would run "
                        + "on every instance"
                : Modifier.isFinal(method.getDeclaringClass().getModifiers()) ? "its class is final, so no class "
                        + "proxy can intercept it and it would run on every instance"
                : null;
        if (problem != null) {
            throw new CosIdConfigurationException(where, annotation.value(), problem, "Make the method void, and "
                    + "public or protected, neither final nor static, in a class that is not final; have it write its "
                    + "results where the other instances can read them.");
        }
        return role;
    }

    /** Runs an annotated method while this instance leads its role; skips it otherwise. */
    static final class Interceptor implements MethodInterceptor {

        private final ObjectProvider<CosIdLeadership> provider;
        private final Map<Method, Role> roleOf = new ConcurrentHashMap<>();
        private volatile CosIdLeadership leadership;

        Interceptor(ObjectProvider<CosIdLeadership> provider) {
            this.provider = provider;
        }

        @Override
        public Object invoke(MethodInvocation invocation) throws Throwable {
            Method method = invocation.getMethod();
            Role role = roleOf.computeIfAbsent(method, called -> {
                Class<?> target = invocation.getThis() != null
                        ? AopProxyUtils.ultimateTargetClass(invocation.getThis()) : called.getDeclaringClass();
                LeaderOnly annotation = AnnotatedElementUtils.findMergedAnnotation(
                        AopUtils.getMostSpecificMethod(called, target), LeaderOnly.class);
                if (annotation == null) {
                    throw new IllegalStateException("no @LeaderOnly on " + called + ", which the proxy intercepted");
                }
                return Role.of(annotation.value());
            });
            CosIdLeadership leading = leadership();
            RoleGate.Pass pass = leading == null ? null : leading.handle(role.name()).gate.enter();
            if (pass == null) {
                if (LOG.isDebugEnabled()) {
                    LOG.debug("skipped {}.{}(): {} does not lead role '{}'", method.getDeclaringClass().getSimpleName(),
                            method.getName(), leading == null ? "this instance" : leading.member(), role);
                }
                return null;
            }
            Leadership before = CosIdLeadership.enterCurrent(pass.leadership());
            try {
                return invocation.proceed();
            } finally {
                CosIdLeadership.leaveCurrent(before);
                pass.close();
            }
        }

        private CosIdLeadership leadership() {
            CosIdLeadership known = leadership;
            if (known == null) {
                try {
                    known = provider.getIfAvailable();
                } catch (BeansException e) {
                    return null; // the context is starting or closing: nobody leads here now
                }
                leadership = known;
            }
            return known;
        }
    }
}
